import type { RouteDefinition } from './route';

/** /v1/contacts/{id} → /v1/contacts/:id */
export const toFastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * Which methods each path template allows, to tell a wrong method (405 with Allow) from an unknown path (404).
 * Literal segments win over templates, as in the router.
 */
export function createRouteTable(routes: RouteDefinition[]) {
  const templates = new Map<string, { pattern: RegExp; literals: number; methods: Set<string> }>();
  for (const route of routes) {
    const entry = templates.get(route.path) ?? {
      pattern: new RegExp(`^${route.path.replace(/\{\w+\}/g, '[^/]+')}/?$`),
      literals: route.path.split('/').filter((segment) => segment && !segment.startsWith('{')).length,
      methods: new Set<string>(),
    };
    entry.methods.add(route.method);
    templates.set(route.path, entry);
  }
  return {
    allowedMethods(url: string): string[] | undefined {
      const path = url.split('?')[0] ?? '';
      const matches = [...templates.values()].filter((entry) => entry.pattern.test(path)).sort((a, b) => b.literals - a.literals);
      const best = matches[0];
      return best ? [...best.methods] : undefined;
    },
  };
}
