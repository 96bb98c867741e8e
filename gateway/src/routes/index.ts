import type { RouteDefinition } from '../http/route';
import { listCustomFieldsRoute } from './account/list-custom-fields.route';
import { listMembersRoute } from './account/list-members.route';
import { listTagsRoute } from './account/list-tags.route';
import { getMeRoute } from './account/me.route';
import { addContactTagsRoute } from './contacts/add-contact-tags.route';
import { createContactRoute } from './contacts/create-contact.route';
import { deleteContactRoute } from './contacts/delete-contact.route';
import { getContactRoute } from './contacts/get-contact.route';
import { listContactsRoute } from './contacts/list-contacts.route';
import { removeContactTagRoute } from './contacts/remove-contact-tag.route';
import { updateContactRoute } from './contacts/update-contact.route';
import { messageCreditRoutes } from './message-credits/discontinued.routes';

/** Every operation of the public API, in catalogue order. */
export const ALL_ROUTES: RouteDefinition[] = [
  listContactsRoute,
  createContactRoute,
  getContactRoute,
  updateContactRoute,
  deleteContactRoute,
  addContactTagsRoute,
  removeContactTagRoute,
  getMeRoute,
  listMembersRoute,
  listCustomFieldsRoute,
  listTagsRoute,
  ...messageCreditRoutes,
];
