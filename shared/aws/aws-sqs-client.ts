import { SQSClient } from "@aws-sdk/client-sqs";
import { asIs } from "./aws-clients.js";
import type { AwsClientsConfig, ClientInstrumentation } from "./aws-clients.js";

/** The SQS client alone, apart from aws-clients.ts: only the modules that send to a queue import it. */
export function sqsClient(config: AwsClientsConfig, instrument: ClientInstrumentation = asIs): SQSClient {
  const endpoint = config.endpoints.sqs;
  return instrument(new SQSClient({ region: config.region, ...(endpoint ? { endpoint } : {}) }));
}
