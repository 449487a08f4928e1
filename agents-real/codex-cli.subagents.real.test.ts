import { describe, expect, it } from 'vitest';
import { readMetricPoints } from '../core/otel/metrics/codex.js';
import { decodeMetrics } from '../core/otel/metrics/decode.js';
import { installedCli } from './install.js';
import { liveRuns, liveTitle, shapeTests } from './live.js';
import type { RunRecord } from './session.js';
import { runId } from './specs.js';
import { linesOfKind, logsNamed } from './telemetry.js';

/**
 * Codex as it is (the pinned version) spawning a subagent thread: the OpenAI stub answers
 * spawn_agent (in Codex's `collaboration` tool namespace), then wait_agent, then text. Each test
 * states a fact docs/otel.md "Subagents" and the recorded tests (core/otel/codex-subagents.test.ts)
 * rely on: which records name the parent thread, and what its metrics do not say.
 */

const install = await installedCli('codex-cli');

/** Every metric point the run exported (the exporter's flush as `codex exec` ends). */
function metricPoints(record: RunRecord) {
  return record.otlp.filter((e) => e.signal === 'metrics').flatMap((e) => decodeMetrics(e.encoding === 'json' ? 'json' : 'protobuf', e.payload));
}

describe.skipIf(!install.ok)(liveTitle('codex-cli', install, 'a spawned subagent thread'), () => {
  const runs = liveRuns('codex-cli', install, ['subagent']);

  it('stays on loopback, spawns a thread that makes its own request, and ends well', () => {
    for (const spec of runs.specs) {
      const record = runs.get(runId(spec));
      expect(record.egress, record.id).toEqual([]);
      expect(record.result.exitCode, record.id).toBe(0);
      // The agent's spawn_agent and wait_agent, the thread's text, the agent's text.
      expect(
        record.apiRequests.map((r) => r.answer),
        record.id,
      ).toEqual(['tool', 'tool', 'text', 'text']);
    }
  });

  it('names the parent in the spawn log record (no conversation.id on it) and the child in its own conversation', () => {
    const record = runs.get('subagent.json-out.otlp-json.default-retries');
    const printed = linesOfKind(record.result.stdout, 'thread.started')[0]?.thread_id;
    const spawns = logsNamed(record.otlp, 'codex.agent_communication').filter((e) => e.attributes.kind === 'spawn');
    expect(spawns).toHaveLength(1);
    const spawn = spawns[0]!.attributes;
    expect(spawn).toMatchObject({ state: 'send', sender_thread_id: printed });
    expect(spawn['conversation.id']).toBeUndefined();
    const child = spawn.receiver_thread_id;
    expect(typeof child === 'string' && child !== printed).toBe(true);
    const childRecords = logsNamed(record.otlp, 'codex.api_request').filter((e) => e.attributes['conversation.id'] === child);
    expect(childRecords).toHaveLength(1);
    expect(logsNamed(record.otlp, 'codex.conversation_starts').map((e) => e.attributes['conversation.id'])).toEqual(expect.arrayContaining([printed, child]));
  });

  it('exports its metrics once, as it exits; codex.thread.started names the parent thread only, and no point names the child', () => {
    for (const spec of runs.specs) {
      const record = runs.get(runId(spec));
      expect(
        record.otlp.filter((e) => e.signal === 'metrics'),
        record.id,
      ).toHaveLength(1);
      const points = metricPoints(record);
      const sources = points.filter((p) => p.metric === 'codex.thread.started').map((p) => p.attributes.session_source);
      expect(sources.sort(), record.id).toEqual(['exec', expect.stringMatching(/^subagent_thread_spawn_[0-9a-f-]{36}_d1$/)]);
      const spawn = points.filter((p) => p.metric === 'codex.multi_agent.spawn');
      expect(
        spawn.map((p) => p.attributes.session_source),
        record.id,
      ).toEqual(['exec']);
      const child = logsNamed(record.otlp, 'codex.agent_communication').find((e) => e.attributes.kind === 'spawn')?.attributes.receiver_thread_id;
      expect(JSON.stringify(points.map((p) => [p.attributes, p.resource])), record.id).not.toContain(String(child));
      expect(readMetricPoints(points).records, record.id).toHaveLength(1);
    }
  });

  shapeTests('codex-cli', runs);
});
