import { useState, type SubmitEvent } from 'react';
import { Button, Group, Modal, SegmentedControl, Stack, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { call, type ResultOf } from '../../../api/client';
import { ErrorNote } from '../../../components/common';
import { useAction } from '../../../lib/data';
import { useFormat } from '../../../lib/format';
import { OnceSecret } from './OnceSecret';
import { RoleBadge } from './RoleBadge';

export function InviteDialog({ isOwner, onClose }: { isOwner: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const create = useAction();
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [made, setMade] = useState<ResultOf<'user.createInvite'> | null>(null);
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const invite = await create.run(() => call('user.createInvite', { role }));
    if (invite) setMade(invite);
  };
  return (
    <Modal opened onClose={onClose} title={t('household.inviteTitle')} centered>
      {made ? (
        <Stack gap="sm">
          <OnceSecret value={made.code} label={t('household.codeLabel')} copyLabel={t('household.copyCode')} testId="invite-code" />
          <Group gap="xs">
            <RoleBadge role={made.role} />
          </Group>
          <Text size="sm">{t('household.codeOnce', { date: f.date(made.expiresAt, 'datetime') })}</Text>
          <Group justify="flex-end">
            <Button onClick={onClose}>{t('household.done')}</Button>
          </Group>
        </Stack>
      ) : (
        <form onSubmit={(event) => void submit(event)}>
          <Stack gap="sm">
            <div>
              <Text size="sm" fw={500} mb={4} id="invite-role-label">
                {t('household.inviteRole')}
              </Text>
              {isOwner ? (
                <SegmentedControl
                  aria-labelledby="invite-role-label"
                  value={role}
                  onChange={(value) => setRole(value === 'admin' ? 'admin' : 'member')}
                  data={[
                    { value: 'member', label: t('household.roles.member') },
                    { value: 'admin', label: t('household.roles.admin') },
                  ]}
                />
              ) : (
                <Group gap="xs">
                  <RoleBadge role="member" />
                  <Text size="xs" c="dimmed">
                    {t('household.adminOwnerOnly')}
                  </Text>
                </Group>
              )}
            </div>
            <Text size="sm" c="dimmed">
              {role === 'admin' ? t('household.adminHint') : t('household.memberHint')}
            </Text>
            <ErrorNote error={create.error} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                {t('common.cancel')}
              </Button>
              <Button type="submit" loading={create.busy}>
                {t('household.createCode')}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
