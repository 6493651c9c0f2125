import { useState, type SubmitEvent } from 'react';
import { ActionIcon, Button, Group, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call } from '../../api/client';
import { Icon } from '../../components/icons';
import { focusFirstInvalid, LimitedTextInput, tooLong } from '../../components/LimitedText';
import { useAction } from '../../lib/data';
import { useErrorText } from '../../lib/errors';
import type { Category } from '../../lib/ledger';
import { textLimit } from '../../api/param-limits';
import { DeleteCategoryDialog } from './DeleteCategoryDialog';

export function CategoryList({ type, list, loading, title }: { type: 'income' | 'expense'; list: Category[]; loading: boolean; title: string }) {
  const { t } = useTranslation();
  const errorText = useErrorText();
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<{ id: string; name: string } | null>(null);
  const [deleting, setDeleting] = useState<Category | null>(null);
  const add = useAction();
  const rename = useAction();
  const remove = useAction();
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (tooLong(name, textLimit('category.create', 'name'))) {
      focusFirstInvalid(event.currentTarget);
      return;
    }
    const ok = await add.run(() => call('category.create', { type, name: name.trim() }));
    if (ok) setName('');
  };
  const saveRename = async (event: SubmitEvent, id: string, newName: string) => {
    event.preventDefault();
    if (tooLong(newName, textLimit('category.create', 'name'))) {
      focusFirstInvalid(event.currentTarget);
      return;
    }
    const ok = await rename.run(() => call('category.update', { id, name: newName.trim() }));
    if (ok) setRenaming(null);
  };
  return (
    <section className="pp-card" aria-label={title}>
      <Title order={2} size="h5" mb="sm">
        {title}
      </Title>
      <form onSubmit={(event) => void submit(event)}>
        <Group align="flex-start" gap="xs" mb="sm">
          <LimitedTextInput
            aria-label={t('settings.newCategory', { type: title })}
            placeholder={t('settings.newCategoryPlaceholder')}
            value={name}
            onChange={setName}
            max={textLimit('category.create', 'name')}
            style={{ flex: 1 }}
            error={add.error ? errorText(add.error) : null}
          />
          <Button type="submit" loading={add.busy} disabled={!name.trim()}>
            {t('settings.add')}
          </Button>
        </Group>
      </form>
      {loading ? (
        <Skeleton h={200} />
      ) : (
        <Stack gap={2}>
          {list.map((c) =>
            renaming?.id === c.id ? (
              <form key={c.id} onSubmit={(event) => void saveRename(event, c.id, renaming.name)}>
                <Group gap="xs">
                  <LimitedTextInput
                    size="xs"
                    aria-label={t('settings.renameCategory', { name: c.name })}
                    value={renaming.name}
                    onChange={(value) => setRenaming({ id: c.id, name: value })}
                    max={textLimit('category.create', 'name')}
                    autoFocus
                    style={{ flex: 1 }}
                    error={rename.error ? errorText(rename.error) : null}
                  />
                  <Button size="xs" type="submit" loading={rename.busy}>
                    {t('common.save')}
                  </Button>
                  <Button size="xs" variant="default" onClick={() => setRenaming(null)}>
                    {t('common.cancel')}
                  </Button>
                </Group>
              </form>
            ) : (
              <Group key={c.id} justify="space-between" py={2}>
                <Text size="sm">{c.name}</Text>
                <Group gap={2}>
                  <ActionIcon
                    variant="subtle"
                    aria-label={t('settings.renameCategory', { name: c.name })}
                    onClick={() => {
                      rename.setError(null);
                      setRenaming({ id: c.id, name: c.name });
                    }}
                  >
                    <Icon name="edit" size={16} />
                  </ActionIcon>
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label={t('settings.deleteCategory', { name: c.name })}
                    onClick={() => {
                      remove.setError(null);
                      setDeleting(c);
                    }}
                  >
                    <Icon name="trash" size={16} />
                  </ActionIcon>
                </Group>
              </Group>
            ),
          )}
        </Stack>
      )}
      <DeleteCategoryDialog category={deleting} list={list} remove={remove} onClose={() => setDeleting(null)} />
    </section>
  );
}
