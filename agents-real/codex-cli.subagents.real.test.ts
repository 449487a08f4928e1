import { describe, expect, it } from 'vitest';
import { readMetricPoints } from '../core/otel/metrics/codex.js';
import { decodeMetrics } from '../core/otel/metrics/decode.js';
import { installedCli } from './cli/install.js';
import { liveRuns, liveTitle, shapeTests } from './live.js';
import type { RunRecord } from './cli/session.js';
import { runId } from './specs.js';
import { linesOfKind, logsNamed } from './otlp/telemetry.js';

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

describe.skipIf(!install.ok)(liveTitle('codex-cli', install, 'spawned subagent threads'), () => {
  const runs = liveRuns('codex-cli', install, ['subagent', 'subagent-nested']);
  /** What each thread was answered, in its own order (the threads' requests interleave as the machine's timing has it). */
  const ANSWERS: Record<string, Record<string, string[]>> = {
    // The agent's spawn_agent, wait_agent and text; the thread's text.
    subagent: { '/root': ['tool', 'tool', 'text'], '/root/greeter': ['text'] },
    // The agent's spawn_agent, wait_agent and text; the outer thread's spawn_agent and text; the inner's text.
    'subagent-nested': { '/root': ['tool', 'tool', 'text'], '/root/outer': ['tool', 'text'], '/root/outer/inner': ['text'] },
  };
  const answersByThread = (record: RunRecord): Record<string, string[]> => {
    const by: Record<string, string[]> = {};
    for (const request of record.apiRequests) {
      const thread = String((JSON.parse(request.headers['x-codex-turn-metadata'] ?? '{}') as { agent_name?: unknown }).agent_name);
      (by[thread] ??= []).push(request.answer);
    }
    return by;
  };
  /** The spawn log records' [sender, receiver] thread ids, in the order they came. */
  const spawnsOf = (record: RunRecord): [unknown, unknown][] =>
    logsNamed(record.otlp, 'codex.agent_communication')
      .filter((e) => e.attributes.kind === 'spawn')
      .map((e) => [e.attributes.sender_thread_id, e.attributes.receiver_thread_id]);

  it('stays on loopback, spawns threads that make their own requests, and ends well', () => {
    for (const spec of runs.specs) {
      const record = runs.get(runId(spec));
      expect(record.egress, record.id).toEqual([]);
      expect(record.result.exitCode, record.id).toBe(0);
      expect(answersByThread(record), record.id).toEqual(ANSWERS[spec.scenario]);
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

  it('a thread spawned by a spawned thread: each spawn record names the level above; the metric says depth 2', () => {
    const record = runs.get('subagent-nested.json-out.otlp-json.default-retries');
    const printed = linesOfKind(record.result.stdout, 'thread.started')[0]?.thread_id;
    const spawns = spawnsOf(record);
    expect(spawns).toHaveLength(2);
    const [outer, inner] = spawns as [[unknown, unknown], [unknown, unknown]];
    expect(outer[0]).toBe(printed);
    expect(inner[0]).toBe(outer[1]);
    const sources = metricPoints(record)
      .filter((p) => p.metric === 'codex.thread.started')
      .map((p) => p.attributes.session_source)
      .sort();
    expect(sources).toEqual(['exec', `subagent_thread_spawn_${String(printed)}_d1`, `subagent_thread_spawn_${String(outer[1])}_d2`]);
  });

  it('exports its metrics once, as it exits; codex.thread.started names the spawning thread only, and no point names a thread it started', () => {
    for (const spec of runs.specs) {
      const record = runs.get(runId(spec));
      expect(
        record.otlp.filter((e) => e.signal === 'metrics'),
        record.id,
      ).toHaveLength(1);
      const points = metricPoints(record);
      const spawns = spawnsOf(record);
      const started = points.filter((p) => p.metric === 'codex.thread.started').map((p) => String(p.attributes.session_source));
      expect(
        started.filter((source) => source !== 'exec'),
        record.id,
      ).toEqual(spawns.map(() => expect.stringMatching(/^subagent_thread_spawn_[0-9a-f-]{36}_d[12]$/)));
      // A spawn's point carries the spawning thread's own source (`exec` for the first thread), never the thread it started.
      const spawnSources = points.filter((p) => p.metric === 'codex.multi_agent.spawn').map((p) => String(p.attributes.session_source));
      expect(spawnSources.sort(), record.id).toEqual(started.sort().slice(0, spawns.length));
      // The innermost thread spawned nothing: no point names it.
      const innermost = String(spawns.at(-1)?.[1]);
      expect(JSON.stringify(points.map((p) => [p.attributes, p.resource])), record.id).not.toContain(innermost);
      expect(readMetricPoints(points).records, record.id).toHaveLength(spawns.length);
    }
  });

  shapeTests('codex-cli', runs);
});
