import type { PolicyProblem } from '../agent/ports/policy.ts';

/** Cedar reports byte offsets into the text it was given; people want `file:line:column` (1-based). */
export function positionAt(text: string, byteOffset: number): { line: number; column: number } {
  const before = Buffer.from(text, 'utf8').subarray(0, Math.max(0, byteOffset)).toString('utf8');
  const lines = before.split('\n');
  return { line: lines.length, column: lines.at(-1)!.length + 1 };
}

export function problemAt(file: string, text: string, byteOffset: number, message: string): PolicyProblem {
  return { file, ...positionAt(text, byteOffset), message };
}

export const formatProblem = (problem: PolicyProblem) => `${problem.file}:${problem.line}:${problem.column} ${problem.message}`;
