import type { RouteDefinition } from './route';

/** /v1/contacts/{id} → /v1/contacts/:id */
export const toFastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** How many paths' templates templateOf remembers. */
const RECENT_PATHS = 1_000;

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
  const recentTemplates = new Map<string, string | undefined>();
  /** The most specific template matching `url`'s path. */
  const bestMatch = (url: string) => {
    const path = url.split('?')[0] ?? '';
    return [...templates].filter(([, entry]) => entry.pattern.test(path)).sort(([, a], [, b]) => b.literals - a.literals)[0];
  };
  return {
    allowedMethods(url: string): string[] | undefined {
      const best = bestMatch(url);
      return best ? [...best[1].methods] : undefined;
    },
    /**
     * The route template `url` falls under (`/v1/contacts/{id}`), whatever its method; remembered for the last paths
     * asked (a flood asks the same path a thousand times a second).
     */
    templateOf(url: string): string | undefined {
      const path = url.split('?')[0] ?? '';
      if (!recentTemplates.has(path)) {
        if (recentTemplates.size >= RECENT_PATHS) recentTemplates.clear();
        recentTemplates.set(path, bestMatch(path)?.[0]);
      }
      return recentTemplates.get(path);
    },
  };
}
