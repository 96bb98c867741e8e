import { readFileSync } from 'node:fs';

/** The parts of a V8 .cpuprofile (Chrome DevTools format) the summary reads. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileShare {
  name: string;
  ms: number;
  percent: number;
}

export interface ProfileSummary {
  /** Sampled wall time of the window and the part of it on the CPU (not `(idle)`). */
  window_ms: number;
  busy_ms: number;
  /** Self time by area: a package of node_modules, a folder of the project, node's internals, GC. */
  areas: ProfileShare[];
  /** The functions with the most self time. */
  functions: ProfileShare[];
}

/** `…/node_modules/@grpc/grpc-js/build/src/x.js` → `@grpc/grpc-js`; project files by their top folders. */
export function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] ?? url);
  }
  const project = /\/(?:dist\/)?((?:services\/[^/]+|gateway|proto)\/(?:src\/[^/]+|gen))/.exec(url);
  return project?.[1] ?? url.replace(/^file:\/\//, '');
}

const share = (entries: Map<string, number>, busy: number, top: number): ProfileShare[] =>
  [...entries]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, ms: Math.round(us / 1000), percent: Math.round((us / busy) * 1000) / 10 }));

/** Self time per area and per function of one profile: where the CPU of that process went. */
export function summarizeProfile(path: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  // The profiler's own start (cpu-profile.mjs → inspector) is sampled too: not the process's work.
  const profiler = new Set<number>();
  const mark = (id: number, inside: boolean) => {
    const node = profile.nodes.find((candidate) => candidate.id === id);
    const here = inside || (node?.callFrame.url.endsWith('cpu-profile.mjs') ?? false);
    if (here) profiler.add(id);
    for (const child of node?.children ?? []) mark(child, here);
  };
  if (profile.nodes[0]) mark(profile.nodes[0].id, false);
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, index) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id);
    if (!frame || frame.functionName === '(idle)' || profiler.has(id)) continue;
    busy += us;
    const area = areaOf(frame.url, frame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const file = frame.url.split('/').slice(-1)[0] ?? '';
    const name = `${frame.functionName || '(anonymous)'} ${file ? `${file}:${frame.lineNumber + 1}` : ''}`.trim();
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  return {
    window_ms: Math.round((profile.endTime - profile.startTime) / 1000),
    busy_ms: Math.round(busy / 1000),
    areas: share(areas, busy, top),
    functions: share(functions, busy, top),
  };
}

/** What `npm run profile -- <route>` keeps of one run: the load and each process's summary. */
export interface ProfileFigures {
  route: string;
  measured_at: string;
  clients: number;
  seconds: number;
  contacts: number;
  load: { rps: number; requests: number; p50_ms: number | null; p99_ms: number | null };
  processes: Record<string, ProfileSummary & { cpu_ms_per_request: number; file: string }>;
}
