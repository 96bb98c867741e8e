import { idSchemaKinds } from '@crm/shared/schemas';
import type { IdKind } from '@crm/shared/core';
import type { z } from 'zod';
import type { RouteDefinition } from '../http/route';
import { components } from '../schemas/registry';
import { COMPONENT_KINDS } from './record-kinds';

type Link = { operationId: string; parameters: Record<string, string>; description: string };

/** The id kind of each path parameter of a route, from its zod params (idOf). */
function pathKinds(route: RouteDefinition): Record<string, IdKind | undefined> {
  const shape = (route.params as z.ZodObject | undefined)?.shape ?? {};
  return Object.fromEntries(Object.entries(shape).map(([name, schema]) => [name, idSchemaKinds.get(schema as z.ZodType)]));
}

/** The kind of record a route answers (one record, or the first of a page). */
function answeredKind(route: RouteDefinition): IdKind | undefined {
  if (route.success.kind === 'none' || route.success.kind === 'gone') return undefined;
  const id = components.get(route.success.schema)?.id;
  return id ? COMPONENT_KINDS[id] : undefined;
}

/**
 * OpenAPI links from each success answer to every operation whose path ids it can fill: the answered record's id
 * (`data.id`, or `data[0].id` for a page) for the one parameter of that kind, and the caller's own path ids for the
 * others (same name, same kind). So createContact links to getContact, updateContact, deleteContact, addContactTags,
 * createContactNote…, and createContactNote links to updateContactNote and deleteContactNote. Stateful fuzzers
 * (schemathesis) follow them to exercise real records.
 */
export function linksOf(route: RouteDefinition, routes: RouteDefinition[]): Record<string, Link> {
  const kind = answeredKind(route);
  if (!kind) return {};
  const source = pathKinds(route);
  const pointer = route.success.kind === 'list' ? '$response.body#/data/0/id' : '$response.body#/data/id';
  const links: Record<string, Link> = {};
  for (const target of routes) {
    if (target === route) continue;
    const parameters: Record<string, string> = {};
    let fromAnswer = 0;
    for (const [name, targetKind] of Object.entries(pathKinds(target))) {
      if (targetKind === kind && fromAnswer === 0 && !(name in source && source[name] === kind)) {
        parameters[name] = pointer;
        fromAnswer++;
      } else if (targetKind && source[name] === targetKind) parameters[name] = `$request.path.${name}`;
      else {
        fromAnswer = -1;
        break;
      }
    }
    if (fromAnswer !== 1) continue;
    links[target.operationId] = { operationId: target.operationId, parameters, description: `${target.summary}, with the answered record` };
  }
  return links;
}
