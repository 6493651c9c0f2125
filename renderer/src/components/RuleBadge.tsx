import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The fields the import rules set on a statement line or an inbox draft, as a small badge ("Rule: category, tags"). */
export function RuleBadge({ rules }: { rules: readonly { fields: readonly string[] }[] }) {
  const { t } = useTranslation();
  const fields = [...new Set(rules.flatMap((r) => r.fields))];
  if (rules.length === 0) return null;
  return (
    <Badge size="xs" variant="light" color="violet" data-testid="rule-badge">
      {t('imports.ruleBadge', { fields: fields.map((f) => t(`imports.ruleFields.${f as 'category'}`)).join(t('errors.listSeparator')) })}
    </Badge>
  );
}
