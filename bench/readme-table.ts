import { readFileSync } from "node:fs";
import { markdownTable, type BenchRow } from "./bench-table.js";

/** `npx tsx bench/readme-table.ts`: the README's selection of bench/results.json, as Markdown (all from one run). */
const README_METRICS = [
  "turn_s3_requests_steady_100", "turn_dynamodb_requests_steady_100", "turn_aws_requests_steady_100",
  "turn_s3_requests_steady_1000", "turn_dynamodb_requests_steady_1000",
  "turn_s3_requests_steady_10000", "turn_dynamodb_requests_steady_10000",
  "relist_s3_gets_after_edit_100", "relist_s3_gets_after_edit_1000", "relist_s3_gets_after_edit_10000",
  "warm_catalogue_heap_mb_1000", "warm_catalogue_heap_mb_10000",
  "compose_p50_ms_1000", "compose_p99_ms_1000", "composeturn_section_p99_ms_1000", "catalog_build_p50_ms_10000",
  "lane_activations_per_s_100", "lane_order_violations", "compose_http_p50_ms", "compose_http_p99_ms",
  "bundle_kb_http-processes", "bundle_kb_lane-worker", "cold_init_ms_http-processes", "cold_init_ms_lane-worker",
  "bundle_kb_http-mcp", "cold_init_ms_http-mcp", "mcp_prompts_list_page_p50_ms", "mcp_prompts_get_p50_ms", "console_bundle_js_kb",
  "cold_first_turn_ms_lane-worker_1000", "bundle_kb_authorizer", "cold_init_ms_authorizer",
  "usage_counts_written_per_quiet_turn", "usage_counts_written_per_one_trigger_turn",
  "catalog_relevance_p99_ms_1000", "catalog_relevance_p99_ms_10000", "skill_search_p99_ms_10000", "relevance_index_build_ms_10000",
  "cold_init_ratio_http-processes", "cold_init_ratio_lane-worker", "cold_init_ratio_http-mcp", "awaits_300k_ms_lane-worker",
];
const rows = JSON.parse(readFileSync(new URL("./results.json", import.meta.url), "utf8")) as BenchRow[];
console.log(markdownTable(rows, README_METRICS));
