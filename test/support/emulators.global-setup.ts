import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/**
 * Integration-test emulators (vitest globalSetup). With AWS_ENDPOINT_URL set (e.g. LocalStack on
 * :4566) every service is taken from there and nothing is started; otherwise fauxqs serves S3 and
 * SQS on one endpoint and dynalite serves DynamoDB, both in-process on free ports.
 */

export type EmulatorMode = "emulators" | "external";

declare module "vitest" {
  interface ProvidedContext {
    awsMode: EmulatorMode;
    /** S3 and SQS endpoint. */
    awsEndpoint: string;
    dynamodbEndpoint: string;
  }
}

// The SDK's "node >= 22 from 2027" notice is noise on the Node 20 runtime this project targets.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.AWS_ENDPOINT_URL;
  if (external) {
    project.provide("awsMode", "external");
    project.provide("awsEndpoint", external);
    project.provide("dynamodbEndpoint", process.env.AWS_ENDPOINT_URL_DYNAMODB ?? external);
    return async () => {};
  }

  const { startFauxqs } = await import("fauxqs");
  const { default: dynalite } = await import("dynalite");

  const fauxqs = await startFauxqs({ port: 0, logger: false });
  const dynamo = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  try {
    await new Promise<void>((resolve, reject) => {
      dynamo.once("error", reject);
      dynamo.listen(0, "127.0.0.1", () => resolve());
    });
  } catch (error) {
    await fauxqs.stop();
    throw error;
  }
  const dynamoPort = (dynamo.address() as AddressInfo).port;

  project.provide("awsMode", "emulators");
  // fauxqs listens on all interfaces; 127.0.0.1 avoids any `localhost` → ::1 surprise.
  project.provide("awsEndpoint", `http://127.0.0.1:${fauxqs.port}`);
  project.provide("dynamodbEndpoint", `http://127.0.0.1:${dynamoPort}`);

  return async () => {
    await Promise.all([fauxqs.stop(), new Promise<void>((resolve) => dynamo.close(() => resolve()))]);
  };
}
