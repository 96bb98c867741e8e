import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Interaction } from './fuzz-report';

type Json = Record<string, any>;

const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * Validates live answers against the document with ajv (JSON Schema 2020-12, formats checked), a validator
 * independent of schemathesis's own: each answer's body against the schema its operation documents for its status.
 */
export function createLiveValidator(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(document, 'openapi');
  const compiled = new Map<string, ValidateFunction | null>();

  const validatorFor = (operation: string, status: number): ValidateFunction | null => {
    const key = `${operation} ${status}`;
    if (!compiled.has(key)) {
      const [method = '', path = ''] = operation.split(' ');
      const responses = document.paths?.[path]?.[method.toLowerCase()]?.responses as Json | undefined;
      const answer = responses?.[String(status)] ?? responses?.[`${String(status)[0]}XX`];
      const ref = `openapi#/paths/${pointer(path)}/${method.toLowerCase()}/responses/${answer === responses?.[String(status)] ? status : `${String(status)[0]}XX`}/content/application~1json/schema`;
      compiled.set(key, answer?.content?.['application/json'] ? (ajv.getSchema(ref) ?? null) : null);
    }
    return compiled.get(key) ?? null;
  };

  return {
    /** What is wrong with the answer, or null; undefined when the document has no JSON schema for it (or the body was cut). */
    check(interaction: Interaction): string | null | undefined {
      if (interaction.body === undefined || !interaction.contentType.includes('json')) return undefined;
      const validate = validatorFor(interaction.operation, interaction.status);
      if (!validate) return undefined;
      let body: unknown;
      try {
        body = JSON.parse(interaction.body);
      } catch {
        return 'the body is not JSON';
      }
      if (validate(body)) return null;
      return ajv.errorsText(validate.errors, { dataVar: 'body' });
    },
  };
}
