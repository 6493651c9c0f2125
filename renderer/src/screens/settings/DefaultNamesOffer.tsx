import { useState } from 'react';
import { Alert, Button, Group, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { LANGUAGES, currentLanguage } from '../../i18n';
import { useAuth } from '../../lib/auth';
import { useAction, useApi } from '../../lib/data';
import { useErrorText } from '../../lib/errors';

const DISMISSED = 'pennypost.keepCategoryNames.';

/**
 * After a language switch: the default categories nobody edited still carry the other language's
 * names (Food in a Chinese UI). This notice names them and offers to rename them
 * (category.renameDefaults); "Keep the names" hides it until the language changes again.
 */
export function DefaultNamesOffer() {
  const { t } = useTranslation(); // re-renders on a language switch
  const errorText = useErrorText();
  const { session } = useAuth();
  const language = currentLanguage();
  const dismissKey = DISMISSED + (session?.user.id ?? '');
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(dismissKey));
  const preview = useApi('category.renameDefaults', { language, preview: true });
  const rename = useAction();
  if (!preview.data || preview.data.renamed === 0 || dismissed === language) return null;
  const label = LANGUAGES.find((l) => l.value === language)?.label ?? language;
  const names = preview.data.changes.map((c) => `${c.from} → ${c.to}`);
  const accept = async () => {
    const done = await rename.run(() => call('category.renameDefaults', { language }));
    if (done) notifications.show({ color: 'teal', message: t('locale.rename.done', { count: done.renamed }) });
  };
  const decline = () => {
    localStorage.setItem(dismissKey, language);
    setDismissed(language);
  };
  return (
    <Alert mt="md" color="teal" variant="light" title={t('locale.rename.title', { language: label })} data-testid="rename-defaults">
      <Text size="sm" mb="sm">
        {t('locale.rename.body', { names: names.join(', ') })}
      </Text>
      {rename.error && (
        <Text size="sm" c="red" mb="sm" role="alert">
          {errorText(rename.error)}
        </Text>
      )}
      <Group gap="xs">
        <Button size="xs" onClick={() => void accept()} loading={rename.busy}>
          {t('locale.rename.accept')}
        </Button>
        <Button size="xs" variant="default" onClick={decline}>
          {t('locale.rename.decline')}
        </Button>
      </Group>
    </Alert>
  );
}
