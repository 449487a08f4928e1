import { HivewatchError } from '../base/errors/hivewatch-error.js';

/**
 * A verifier agent reviews an attempt's work (hivemind-error-model.md §3.5): it answers with a
 * verdict on its first line. `HARD FAIL` rejects the work for good (VERIFICATION_AGENT_REJECTED,
 * never retried); `SOFT FAIL` asks for another attempt (VERIFICATION_CHECK_FAILED from
 * `verifier`, its text as feedback); anything else passes.
 */

export function verifierPrompt(task: string, output: string, diffStat: string): string {
  return [
    `Review the work of the task "${task}" in this repository (the working tree holds its changes).`,
    `Changes:\n${diffStat || '(no file changed)'}`,
    `The agent answered:\n${output.slice(-4000)}`,
    'Answer on the first line with PASS, SOFT FAIL: <what to fix> (another attempt may fix it), or HARD FAIL: <why> (the work must not be used).',
  ].join('\n\n');
}

export function verdictError(verifier: string, answer: string, diffStat: string): HivewatchError | null {
  const first = answer.trimStart().split('\n', 1)[0]?.trim() ?? '';
  const verdict = /^(HARD|SOFT)\s+FAIL\b[:\s-]*(.*)$/i.exec(first);
  if (!verdict) return null;
  const reason = (verdict[2] ?? '').trim() || answer.trim().slice(0, 500);
  const context = { verifier, verdict: `${(verdict[1] as string).toUpperCase()} FAIL`, outputTail: answer.slice(-2000), diffStat };
  if ((verdict[1] as string).toUpperCase() === 'HARD') {
    return new HivewatchError('VERIFICATION_AGENT_REJECTED', { message: `verifier ${verifier} rejected the work: ${reason}`, origin: 'verifier', context });
  }
  return new HivewatchError('VERIFICATION_CHECK_FAILED', { message: `verifier ${verifier} asked for changes: ${reason}`, origin: 'verifier', context });
}
