import { describe, expect, it } from 'vitest';
import { CODEX_BUILT_IN_RATE_LIMIT } from '../../core/flow/check/retry-owners.js';
import { readFixture } from './fixtures-io.js';
import { CLI_PINS } from '../pins.js';

/**
 * The request counts `hivewatch check` and the codex-cli preset quote are the ones recorded from
 * the pinned Codex (fixtures/codex-cli/rate-limit…built-in-provider): re-recording with a newer
 * version that retries differently fails here until the quoted figures follow.
 */

describe("the check's Codex retry figures are the recording's", () => {
  it('one turn answered 429 with the built-in openai provider: the WebSocket handshakes and the HTTPS requests the stub counted, by the pinned version', () => {
    const recorded = readFixture('codex-cli', 'rate-limit.json-out.otlp-json.default-retries.built-in-provider');
    expect(recorded, 'the built-in-provider recording').not.toBeNull();
    const run = recorded!.run;
    // The stub answers no WebSocket upgrade: each handshake is a GET of /v1/responses; the HTTPS requests are its API requests.
    const websocket = run.otherRequests.filter((r) => r.method === 'GET' && r.path.startsWith('/v1/responses')).length;
    expect({ version: run.cliVersion, websocket, https: run.apiRequestCount }).toEqual(CODEX_BUILT_IN_RATE_LIMIT);
    expect(run.cliVersion).toBe(CLI_PINS['codex-cli'].version);
  });
});
