import { defineDomain } from '../domain';
import { importErrors } from './errors';
import { importActions } from './import-actions';
import { inboxActions } from './inbox/inbox-actions';
import { mountInboxRoutes } from './inbox/inbox-route';
import { InboxService } from './inbox/inbox-service';
import { CsvMappings } from './pipeline/csv-mappings';
import { ImportService } from './pipeline/import-service';
import { StatementReader } from './pipeline/statement-reader';
import { ruleActions } from './rules/rule-actions';
import { RuleService } from './rules/rule-service';
import { RuleSuggestions } from './rules/suggestions';

declare module '../app-context' {
  interface ServiceMap {
    imports: ImportService;
    importRules: RuleService;
    ruleSuggestions: RuleSuggestions;
    inbox: InboxService;
  }
}

/**
 * Bringing money in (docs/import.md): statement imports (Alipay, WeChat Pay, OFX/QFX, QIF,
 * CAMT.053, any bank CSV) with a preview, rules, and the record-by-message inbox (/in/{inboxKey}).
 * No collection of its own: rules, mappings, inbox keys and drafts are local-store state.
 */
export function importsDomain() {
  let suggestions: RuleSuggestions | undefined;
  let stopRenames: (() => void) | undefined;
  return defineDomain({
    name: 'imports',
    needs: ['users', 'ledger', 'push'],
    uses: ['backup'],
    errors: importErrors,
    actions: { ...importActions, ...ruleActions, ...inboxActions },
    start(app) {
      const rules = (app.services.importRules = new RuleService(app));
      // Statement files are read in worker threads (pipeline/statement-reader.ts), never on the server's own.
      const reader = new StatementReader();
      app.services.imports = new ImportService(app, rules, new CsvMappings(app, reader), reader);
      app.services.inbox = new InboxService(app, rules);
      suggestions = app.services.ruleSuggestions = new RuleSuggestions(app, rules);
      suggestions.start();
      // Rules follow a renamed category (rename, merge, language switch), as budgets do.
      stopRenames = app.services.ledger.categories.onRenamed((change) => rules.renameCategory(change.userId, change.from, change.to));
    },
    routes(router, app) {
      mountInboxRoutes(router, app);
    },
    async forgetUser(app, userId) {
      await app.services.imports.forgetUser(userId);
      await app.services.importRules.forgetUser(userId);
      await app.services.ruleSuggestions.forgetUser(userId);
      await app.services.inbox.forgetUser(userId);
      await app.services.imports.mappings.forgetUser(userId);
    },
    async stop(app) {
      stopRenames?.();
      await suggestions?.stop();
      await app.services.imports.close();
    },
  });
}
