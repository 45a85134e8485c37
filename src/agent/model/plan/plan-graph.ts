/** Graph facts about a plan's steps: ancestors, a cycle if there is one, topological order. */
export interface GraphStep {
  id: string;
  dependsOn: readonly string[];
}

/** Every step each step waits for, directly or through others (unknown ids ignored). */
export function ancestorsOf(steps: readonly GraphStep[]): Map<string, Set<string>> {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const memo = new Map<string, Set<string>>();
  const visit = (id: string, trail: Set<string>): Set<string> => {
    const known = memo.get(id);
    if (known) return known;
    const result = new Set<string>();
    if (trail.has(id)) return result; // a cycle; reported by findCycle
    trail.add(id);
    for (const dep of byId.get(id)?.dependsOn ?? []) {
      if (!byId.has(dep)) continue;
      result.add(dep);
      for (const inner of visit(dep, trail)) result.add(inner);
    }
    trail.delete(id);
    memo.set(id, result);
    return result;
  };
  for (const step of steps) visit(step.id, new Set());
  return memo;
}

/** One cycle as a path (`['s1', 's2', 's1']`), or null. */
export function findCycle(steps: readonly GraphStep[]): string[] | null {
  const byId = new Map(steps.map((step) => [step.id, step]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (id: string): string[] | null => {
    if (state.get(id) === 'done') return null;
    if (state.get(id) === 'open') return [...stack.slice(stack.indexOf(id)), id];
    state.set(id, 'open');
    stack.push(id);
    for (const dep of byId.get(id)?.dependsOn ?? []) {
      if (!byId.has(dep)) continue;
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(id, 'done');
    return null;
  };
  for (const step of steps) {
    const cycle = visit(step.id);
    if (cycle) return cycle.reverse();
  }
  return null;
}

/** Steps ordered so each comes after what it depends on; ties keep plan order. Assumes no cycle. */
export function topologicalOrder(steps: readonly GraphStep[]): string[] {
  const order: string[] = [];
  const placed = new Set<string>();
  const ids = new Set(steps.map((step) => step.id));
  while (order.length < steps.length) {
    const next = steps.find((step) => !placed.has(step.id) && step.dependsOn.every((dep) => placed.has(dep) || !ids.has(dep)));
    if (!next) break;
    placed.add(next.id);
    order.push(next.id);
  }
  return order;
}
