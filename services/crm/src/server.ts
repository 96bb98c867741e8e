import { AccountServiceService, type AccountServiceServer } from '@crm/proto/gen/crm/v1/accounts';
import { AudienceServiceService, type AudienceServiceServer } from '@crm/proto/gen/crm/v1/audiences';
import { CompanyServiceService, type CompanyServiceServer } from '@crm/proto/gen/crm/v1/companies';
import { ContactServiceService, type ContactServiceServer } from '@crm/proto/gen/crm/v1/contacts';
import { DealServiceService, type DealServiceServer } from '@crm/proto/gen/crm/v1/deals';
import { FunnelServiceService, type FunnelServiceServer } from '@crm/proto/gen/crm/v1/funnels';
import { NoteServiceService, type NoteServiceServer } from '@crm/proto/gen/crm/v1/notes';
import { TaskServiceService, type TaskServiceServer } from '@crm/proto/gen/crm/v1/tasks';
import { bindHandlers, type FairScheduler, type GrpcServiceBinding, type Logger } from '@crm/shared';
import type { CrmDeps } from './domain/deps';
import { addContactTagsHandler } from './handlers/add-contact-tags.handler';
import { listApiKeysHandler } from './handlers/list-api-keys.handler';
import { listInactiveKeysHandler } from './handlers/list-inactive-keys.handler';
import { batchUpsertCompaniesHandler } from './handlers/batch-upsert-companies.handler';
import { batchUpsertContactsHandler } from './handlers/batch-upsert-contacts.handler';
import { authenticateHandler } from './handlers/authenticate.handler';
import { completeTaskHandler } from './handlers/complete-task.handler';
import { createCompanyHandler } from './handlers/create-company.handler';
import { createContactHandler } from './handlers/create-contact.handler';
import { createDealHandler } from './handlers/create-deal.handler';
import { createFunnelHandler } from './handlers/create-funnel.handler';
import { createNoteHandler } from './handlers/create-note.handler';
import { createStageHandler } from './handlers/create-stage.handler';
import { createTaskHandler } from './handlers/create-task.handler';
import { deleteCompanyHandler } from './handlers/delete-company.handler';
import { deleteContactHandler } from './handlers/delete-contact.handler';
import { deleteDealHandler } from './handlers/delete-deal.handler';
import { deleteNoteHandler } from './handlers/delete-note.handler';
import { deleteStageHandler } from './handlers/delete-stage.handler';
import { deleteTaskHandler } from './handlers/delete-task.handler';
import { getCompanyHandler } from './handlers/get-company.handler';
import { getContactHandler } from './handlers/get-contact.handler';
import { getContactFieldsHandler } from './handlers/get-contact-fields.handler';
import { getDealHandler } from './handlers/get-deal.handler';
import { getFunnelHandler } from './handlers/get-funnel.handler';
import { getMeHandler } from './handlers/get-me.handler';
import { getTaskHandler } from './handlers/get-task.handler';
import { listCompaniesHandler } from './handlers/list-companies.handler';
import { listContactsHandler } from './handlers/list-contacts.handler';
import { listCustomFieldsHandler } from './handlers/list-custom-fields.handler';
import { listDealsHandler } from './handlers/list-deals.handler';
import { listFunnelsHandler } from './handlers/list-funnels.handler';
import { listMembersHandler } from './handlers/list-members.handler';
import { listNotesHandler } from './handlers/list-notes.handler';
import { listTagsHandler } from './handlers/list-tags.handler';
import { listTasksHandler } from './handlers/list-tasks.handler';
import { mergeContactsHandler } from './handlers/merge-contacts.handler';
import { loseDealHandler } from './handlers/lose-deal.handler';
import { moveDealHandler } from './handlers/move-deal.handler';
import { removeContactTagHandler } from './handlers/remove-contact-tag.handler';
import { reopenDealHandler } from './handlers/reopen-deal.handler';
import { reopenTaskHandler } from './handlers/reopen-task.handler';
import { resolveChannelContactHandler } from './handlers/resolve-channel-contact.handler';
import { revokeApiKeyHandler } from './handlers/revoke-api-key.handler';
import { streamAudienceHandler } from './handlers/stream-audience.handler';
import { transferDealHandler } from './handlers/transfer-deal.handler';
import { updateCompanyHandler } from './handlers/update-company.handler';
import { updateContactHandler } from './handlers/update-contact.handler';
import { updateDealHandler } from './handlers/update-deal.handler';
import { updateFunnelHandler } from './handlers/update-funnel.handler';
import { updateNoteHandler } from './handlers/update-note.handler';
import { updateStageHandler } from './handlers/update-stage.handler';
import { updateTaskHandler } from './handlers/update-task.handler';
import { winDealHandler } from './handlers/win-deal.handler';

/**
 * The CRM's gRPC services: each generated definition with its handlers, one RPC per file in handlers/. The
 * `scheduler` shares the process's places for calls among organizations (every call reads or writes the database).
 */
export function crmGrpcServices(deps: CrmDeps, logger: Logger, scheduler?: FairScheduler): GrpcServiceBinding[] {
  const contacts = bindHandlers<ContactServiceServer, CrmDeps>(
    deps,
    {
      listContacts: listContactsHandler,
      getContact: getContactHandler,
      getContactFields: getContactFieldsHandler,
      createContact: createContactHandler,
      updateContact: updateContactHandler,
      deleteContact: deleteContactHandler,
      addContactTags: addContactTagsHandler,
      removeContactTag: removeContactTagHandler,
      resolveChannelContact: resolveChannelContactHandler,
      mergeContacts: mergeContactsHandler,
      batchUpsertContacts: batchUpsertContactsHandler,
    },
    logger,
    scheduler,
  );
  const companies = bindHandlers<CompanyServiceServer, CrmDeps>(
    deps,
    {
      listCompanies: listCompaniesHandler,
      getCompany: getCompanyHandler,
      createCompany: createCompanyHandler,
      batchUpsertCompanies: batchUpsertCompaniesHandler,
      updateCompany: updateCompanyHandler,
      deleteCompany: deleteCompanyHandler,
    },
    logger,
    scheduler,
  );
  const notes = bindHandlers<NoteServiceServer, CrmDeps>(
    deps,
    { listNotes: listNotesHandler, createNote: createNoteHandler, updateNote: updateNoteHandler, deleteNote: deleteNoteHandler },
    logger,
    scheduler,
  );
  const tasks = bindHandlers<TaskServiceServer, CrmDeps>(
    deps,
    {
      listTasks: listTasksHandler,
      getTask: getTaskHandler,
      createTask: createTaskHandler,
      updateTask: updateTaskHandler,
      deleteTask: deleteTaskHandler,
      completeTask: completeTaskHandler,
      reopenTask: reopenTaskHandler,
    },
    logger,
    scheduler,
  );
  const deals = bindHandlers<DealServiceServer, CrmDeps>(
    deps,
    {
      listDeals: listDealsHandler,
      getDeal: getDealHandler,
      createDeal: createDealHandler,
      updateDeal: updateDealHandler,
      deleteDeal: deleteDealHandler,
      moveDeal: moveDealHandler,
      winDeal: winDealHandler,
      loseDeal: loseDealHandler,
      reopenDeal: reopenDealHandler,
      transferDeal: transferDealHandler,
    },
    logger,
    scheduler,
  );
  const funnels = bindHandlers<FunnelServiceServer, CrmDeps>(
    deps,
    {
      listFunnels: listFunnelsHandler,
      getFunnel: getFunnelHandler,
      createFunnel: createFunnelHandler,
      updateFunnel: updateFunnelHandler,
      createStage: createStageHandler,
      updateStage: updateStageHandler,
      deleteStage: deleteStageHandler,
    },
    logger,
    scheduler,
  );
  const accounts = bindHandlers<AccountServiceServer, CrmDeps>(
    deps,
    {
      authenticate: authenticateHandler,
      getMe: getMeHandler,
      listMembers: listMembersHandler,
      listCustomFields: listCustomFieldsHandler,
      listTags: listTagsHandler,
      listInactiveKeys: listInactiveKeysHandler,
      listApiKeys: listApiKeysHandler,
      revokeApiKey: revokeApiKeyHandler,
    },
    logger,
    scheduler,
  );
  const audiences = bindHandlers<AudienceServiceServer, CrmDeps>(deps, { streamAudience: streamAudienceHandler }, logger, scheduler);
  return [
    { definition: ContactServiceService, implementation: contacts },
    { definition: CompanyServiceService, implementation: companies },
    { definition: NoteServiceService, implementation: notes },
    { definition: TaskServiceService, implementation: tasks },
    { definition: DealServiceService, implementation: deals },
    { definition: FunnelServiceService, implementation: funnels },
    { definition: AccountServiceService, implementation: accounts },
    { definition: AudienceServiceService, implementation: audiences },
  ];
}
