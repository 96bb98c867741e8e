type Operation = { summary?: string; description?: string; 'x-scope'?: string | null; deprecated?: boolean };

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A self-contained reference page (no external scripts): every operation with its scope and description. */
export function renderDocsPage(document: Record<string, unknown>): string {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const rows = Object.entries(paths)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(
        ([method, op]) => `<tr${op.deprecated ? ' class="deprecated"' : ''}>
  <td><code class="m ${method}">${method.toUpperCase()}</code></td><td><code>${escapeHtml(path)}</code></td>
  <td>${escapeHtml(op.summary ?? '')}<br><small>${escapeHtml(op.description ?? '')}</small></td>
  <td><code>${escapeHtml(op['x-scope'] ?? '—')}</code></td></tr>`,
      ),
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>CRM Public API v1</title>
<style>body{font:14px/1.5 system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;width:100%}
td{border-top:1px solid #ddd;padding:.5rem;vertical-align:top}small{color:#666;white-space:pre-line}.m{font-weight:bold}
.get{color:#0a7}.post{color:#05c}.patch{color:#b60}.put{color:#b60}.delete{color:#c22}.deprecated{opacity:.6}</style></head>
<body><h1>CRM Public API v1</h1><p>Machine-readable description: <a href="/api/docs/openapi.json">/api/docs/openapi.json</a> (OpenAPI 3.1).
Send <code>Authorization: Bearer sk_live_…</code> on every call.</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Operation</th><th>Scope</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>`;
}
