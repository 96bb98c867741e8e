/** The health probes (app.ts): not API traffic, never shed, never refused while shutting down, never measured. */
const PROBE_PATHS = new Set(['/healthz', '/readyz']);

export const isProbe = (url: string): boolean => PROBE_PATHS.has(url.split('?')[0] ?? '');
