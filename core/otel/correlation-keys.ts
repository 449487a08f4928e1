import { boundedId } from './receive/bounds.js';
import { own, type TelemetryRecord } from './receive/decode.js';
import { str } from './mapping.js';

/**
 * The ids a record carries that find its request elsewhere, kept in the context of every error it
 * reports (docs/otel.md "Correlation keys"): the provider's request id (`request_id`, what its
 * support asks for), the client's own id of that request (`client_request_id`, in the provider's
 * logs even when no response came back), the transcript message (`message.uuid`), and the CI
 * workflow run a headless session ran in (`workflow.run_id` / `workflow.name`, from the record
 * or its resource).
 */
export interface CorrelationKeys {
  requestId?: string;
  clientRequestId?: string;
  messageUuid?: string;
  workflow?: { runId: string | null; name: string | null };
}

function id(record: TelemetryRecord, key: string, fromResource = false): string | null {
  const value = str(own(record.attributes, key) ?? (fromResource ? own(record.resource, key) : undefined));
  return value === null ? null : boundedId(value, key).value;
}

export function correlationKeysOf(record: TelemetryRecord): CorrelationKeys {
  const keys: CorrelationKeys = {};
  const requestId = id(record, 'request_id');
  const clientRequestId = id(record, 'client_request_id');
  const messageUuid = id(record, 'message.uuid');
  const workflow = { runId: id(record, 'workflow.run_id', true), name: id(record, 'workflow.name', true) };
  if (requestId !== null) keys.requestId = requestId;
  if (clientRequestId !== null) keys.clientRequestId = clientRequestId;
  if (messageUuid !== null) keys.messageUuid = messageUuid;
  if (workflow.runId !== null || workflow.name !== null) keys.workflow = workflow;
  return keys;
}
