/**
 * Which args of a step name the object it acts on (its repository, number, tag, ref, workflow,
 * channel), and which of those are filled at run time from a person's answer or a model's text.
 * One answer read by the plan view (targets shown in full), the repository allow-list and the
 * Confirm of a late-bound target, so the three can never disagree.
 */
import { findReferences } from './references.ts';
import type { AnyTool } from '../ports/tool.ts';

type ToolTargets = Pick<AnyTool, 'targets'> | undefined;

/**
 * The step's target args that it has, in the order the tool declares them. A tool that declares no
 * list (an MCP tool, an unknown tool) has every arg counted: nothing says which of them pick the
 * object, so none may be hidden or slip past a Confirm.
 */
export function targetArgNames(tool: ToolTargets, args: Record<string, unknown>): string[] {
  if (!tool?.targets) return Object.keys(args);
  return tool.targets.filter((name) => args[name] !== undefined);
}

/** `[name, value]` of each target arg, in targetArgNames' order. */
export function targetArgs(tool: ToolTargets, args: Record<string, unknown>): [string, unknown][] {
  return targetArgNames(tool, args).map((name) => [name, args[name]]);
}

/** A step as far as provenance goes: its id, its tool, and its args as planned (references unfilled). */
export interface StepSource {
  stepId: string;
  tool: string;
  args: Record<string, unknown>;
}

/**
 * Steps whose output carries a person's or a model's words: an `outputFrom` tool's steps, and any
 * step with an arg filled from one of those (a read of "the PR the person named" is still the
 * person's pick). Step ids repeat across plan versions; one tainted record taints the id.
 */
export function wordSteps(steps: readonly StepSource[], toolOf: (name: string) => Pick<AnyTool, 'outputFrom'> | undefined): Set<string> {
  const tainted = new Set(steps.filter((step) => toolOf(step.tool)?.outputFrom).map((step) => step.stepId));
  for (let grew = true; grew;) {
    grew = false;
    for (const step of steps) {
      if (tainted.has(step.stepId)) continue;
      if (findReferences(step.args).references.some((ref) => tainted.has(ref.stepId))) {
        tainted.add(step.stepId);
        grew = true;
      }
    }
  }
  return tainted;
}

/** The target args of `args` that hold a reference (whole or inside text) to one of `words`' steps. */
export function lateBoundTargetNames(tool: ToolTargets, args: Record<string, unknown>, words: ReadonlySet<string>): string[] {
  return targetArgNames(tool, args).filter((name) => findReferences(args[name], name).references.some((ref) => words.has(ref.stepId)));
}
