import { useState } from 'react';
import { ActionIcon, Badge, Button, Group, Skeleton, Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../../api/client';
import { Empty, ErrorNote } from '../../../components/common';
import { Icon } from '../../../components/icons';
import { useAction, useApi } from '../../../lib/data';
import { RuleForm, type RuleDraft } from './RuleForm';
import { useRuleWords, type ImportRule, type RuleSuggestion } from './rule-words';
import { Card } from '../../../components/Card';

/**
 * Settings → Rules: "when the description contains STARBUCKS, set the category to Coffee". They run
 * on every statement import and every inbox draft. Suggestions come first (after the same payee was
 * moved to the same category a few times), then the rules in words, each to edit or delete.
 */
export function RulesTab() {
  const { t } = useTranslation();
  const rules = useApi('rule.query', {});
  const [editing, setEditing] = useState<RuleDraft | null>(null);
  const suggestions = rules.data?.suggestions ?? [];
  return (
    <Stack>
      {suggestions.length > 0 && (
        <Card id="rules-suggestions" title={t('rules.suggestions')} data-testid="rule-suggestions">
          <Stack gap="xs">
            {suggestions.map((suggestion) => (
              <SuggestionRow key={suggestion.key} suggestion={suggestion} onAdjust={() => setEditing({ match: suggestion.match, set: suggestion.set })} />
            ))}
          </Stack>
        </Card>
      )}
      <Card
        id="rules-list"
        title={t('rules.title')}
        hint={t('rules.hint')}
        aside={
          <Button size="xs" onClick={() => setEditing({})}>
            {t('rules.new')}
          </Button>
        }
      >
        <ErrorNote error={rules.error} onRetry={rules.reload} />
        {!rules.data ? (
          <Skeleton h={80} />
        ) : rules.data.list.length === 0 ? (
          <Empty>{t('rules.none')}</Empty>
        ) : (
          <Stack gap="xs" data-testid="rule-list">
            {rules.data.list.map((rule) => (
              <RuleRow key={rule.id} rule={rule} onEdit={() => setEditing({ rule })} />
            ))}
          </Stack>
        )}
      </Card>
      {editing && <RuleForm draft={editing} onClose={() => setEditing(null)} />}
    </Stack>
  );
}

function RuleRow({ rule, onEdit }: { rule: ImportRule; onEdit: () => void }) {
  const { t } = useTranslation();
  const words = useRuleWords();
  const remove = useAction();
  const text = words.text(rule);
  return (
    <div data-testid="rule-row" aria-label={text} role="group">
      <Group justify="space-between" wrap="nowrap">
        <div style={{ minWidth: 0 }}>
          <Text size="sm">
            {words.when(rule.match)} <span aria-hidden="true">→</span> <strong>{words.then(rule.set)}</strong>
          </Text>
          {rule.autoConfirm && (
            <Badge size="xs" variant="light" color="blue">
              {t('rules.autoConfirmBadge')}
            </Badge>
          )}
        </div>
        <Group gap={4} wrap="nowrap">
          <ActionIcon variant="subtle" aria-label={t('rules.edit', { rule: text })} onClick={onEdit}>
            <Icon name="edit" />
          </ActionIcon>
          <ActionIcon
            variant="subtle"
            color="red"
            aria-label={t('rules.delete', { rule: text })}
            disabled={remove.busy}
            onClick={() => {
              if (window.confirm(t('rules.deleteConfirm', { rule: text }))) void remove.run(() => call('rule.delete', { id: rule.id }));
            }}
          >
            <Icon name="trash" />
          </ActionIcon>
        </Group>
      </Group>
      <ErrorNote error={remove.error} />
    </div>
  );
}

/** "You moved “Starbucks” to Coffee 2 times — make it a rule?" with Create, Adjust… and Dismiss. */
function SuggestionRow({ suggestion, onAdjust }: { suggestion: RuleSuggestion; onAdjust: () => void }) {
  const { t } = useTranslation();
  const words = useRuleWords();
  const action = useAction();
  const create = async () => {
    const saved = await action.run(() => call('rule.create', { match: suggestion.match, set: suggestion.set }));
    if (saved) notifications.show({ color: 'teal', message: t('rules.created') });
  };
  const sentence = suggestion.set.category
    ? t('rules.suggestion', { payee: String(suggestion.match.value), category: suggestion.set.category, count: suggestion.count })
    : words.text(suggestion);
  return (
    <div data-testid="rule-suggestion" role="group" aria-label={sentence}>
      <Group justify="space-between" wrap="nowrap" align="center">
        <div style={{ minWidth: 0 }}>
          <Text size="sm">{sentence}</Text>
          <Text size="xs" c="dimmed">
            {words.text(suggestion)}
          </Text>
        </div>
        <Group gap={6} wrap="nowrap">
          <Button size="xs" onClick={() => void create()} loading={action.busy}>
            {t('rules.createSuggested')}
          </Button>
          <Button size="xs" variant="default" onClick={onAdjust}>
            {t('rules.adjust')}
          </Button>
          <Button size="xs" variant="subtle" onClick={() => void action.run(() => call('rule.dismissSuggestion', { key: suggestion.key }))} disabled={action.busy}>
            {t('rules.dismiss')}
          </Button>
        </Group>
      </Group>
      <ErrorNote error={action.error} />
    </div>
  );
}
