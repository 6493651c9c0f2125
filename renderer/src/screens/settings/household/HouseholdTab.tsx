import { useState } from 'react';
import { Badge, Button, Group, Menu, Skeleton, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call } from '../../../api/client';
import { ActionsHeader, Empty, ErrorNote } from '../../../components/common';
import { useAuth, type Role } from '../../../lib/auth';
import { useAction, useApi } from '../../../lib/data';
import { useFormat } from '../../../lib/format';
import { DeleteMemberDialog } from './DeleteMemberDialog';
import { InviteDialog } from './InviteDialog';
import type { Member } from './members';
import { RegistrationSettings } from './RegistrationSettings';
import { ResetPasswordDialog } from './ResetPasswordDialog';
import { RoleBadge } from './RoleBadge';
import { Card } from '../../../components/Card';
import { RowMenu } from '../../../components/RowMenu';

const RANK: Record<Role, number> = { owner: 2, admin: 1, member: 0 };

/**
 * Settings → Household (owner and admins): the accounts of this PennyPost with their role and
 * state, invite codes, and who may sign up. Owner and admins act on accounts below their rank;
 * only the owner names admins.
 */
export function HouseholdTab() {
  const { t } = useTranslation();
  const f = useFormat();
  const { session } = useAuth();
  const household = useApi('user.listMembers', {});
  const act = useAction();
  const revoke = useAction();
  const [inviting, setInviting] = useState(false);
  const [resetting, setResetting] = useState<Member | null>(null);
  const [deleting, setDeleting] = useState<Member | null>(null);
  const myId = session?.user.id ?? '';
  const myRole: Role = session?.user.role ?? 'member';
  const isOwner = myRole === 'owner';
  const members = household.data?.members ?? [];
  const invites = household.data?.invites ?? [];
  const nameOf = (id: string) => members.find((m) => m.id === id)?.username ?? '—';
  const canManage = (m: Member) => m.id !== myId && RANK[m.role] < RANK[myRole];

  const setRole = async (m: Member, role: 'admin' | 'member') => {
    const done = await act.run(() => call('user.setRole', { userId: m.id, role }));
    if (done) notifications.show({ color: 'teal', message: t(role === 'admin' ? 'household.madeAdmin' : 'household.madeMember', { name: m.username }) });
  };
  const setDisabled = async (m: Member, disabled: boolean) => {
    const done = await act.run(() => (disabled ? call('user.disable', { userId: m.id }) : call('user.enable', { userId: m.id })));
    if (done) notifications.show({ color: 'teal', message: t(disabled ? 'household.disabledDone' : 'household.enabledDone', { name: m.username }) });
  };
  const revokeInvite = async (id: string) => {
    const done = await revoke.run(() => call('user.revokeInvite', { id }));
    if (done) notifications.show({ color: 'teal', message: t('household.revoked') });
  };

  return (
    <Stack>
      <Card id="hh-members" title={t('household.title')} hint={t('household.hint')} aside={<Button onClick={() => setInviting(true)}>{t('household.invite')}</Button>}>
        <ErrorNote error={household.error ?? act.error} onRetry={household.error ? household.reload : undefined} />
        {!household.data ? (
          <Skeleton h={120} />
        ) : (
          <div className="pp-table-wrap">
            <Table aria-labelledby="hh-members" data-testid="household-members">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>{t('household.name')}</Table.Th>
                  <Table.Th>{t('household.role')}</Table.Th>
                  <Table.Th>{t('household.state')}</Table.Th>
                  <Table.Th>{t('household.joined')}</Table.Th>
                  <ActionsHeader width={40} />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {members.map((m) => (
                  <Table.Tr key={m.id} data-member={m.username}>
                    <Table.Td>
                      <Text size="sm" fw={600}>
                        {m.username}
                        {m.id === myId && (
                          <Text span size="sm" c="dimmed" fw={400}>
                            {' '}
                            ({t('household.you')})
                          </Text>
                        )}
                      </Text>
                      {m.email && (
                        <Text size="xs" c="dimmed">
                          {m.email}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>
                      <RoleBadge role={m.role} />
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4}>
                        {m.disabled ? (
                          <Badge color="red" variant="light">
                            {t('household.disabled')}
                          </Badge>
                        ) : (
                          <Badge color="teal" variant="light">
                            {t('household.active')}
                          </Badge>
                        )}
                        {m.mustChangePassword && (
                          <Badge color="yellow" variant="light">
                            {t('household.mustChange')}
                          </Badge>
                        )}
                        {m.signIn.includes('desktop') && (
                          <Badge color="gray" variant="outline">
                            {t('household.noPassword')}
                          </Badge>
                        )}
                      </Group>
                    </Table.Td>
                    <Table.Td>{f.date(m.createdAt)}</Table.Td>
                    <Table.Td>
                      {canManage(m) && (
                        <RowMenu label={t('household.actionsFor', { name: m.username })} withinPortal loading={act.busy}>
                          {isOwner &&
                            (m.role === 'admin' ? (
                              <Menu.Item onClick={() => void setRole(m, 'member')}>{t('household.makeMember')}</Menu.Item>
                            ) : (
                              <Menu.Item onClick={() => void setRole(m, 'admin')}>{t('household.makeAdmin')}</Menu.Item>
                            ))}
                          {m.disabled ? (
                            <Menu.Item onClick={() => void setDisabled(m, false)}>{t('household.enable')}</Menu.Item>
                          ) : (
                            <Menu.Item onClick={() => void setDisabled(m, true)}>{t('household.disable')}</Menu.Item>
                          )}
                          {m.email && <Menu.Item onClick={() => setResetting(m)}>{t('household.resetPassword')}</Menu.Item>}
                          <Menu.Item color="red" onClick={() => setDeleting(m)}>
                            {t('household.delete')}
                          </Menu.Item>
                        </RowMenu>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </Card>

      <Card id="hh-invites" title={t('household.invites')} titleGap="sm">
        <ErrorNote error={revoke.error} />
        {household.data && invites.length === 0 ? (
          <Empty>{t('household.noInvites')}</Empty>
        ) : (
          <Table aria-labelledby="hh-invites" data-testid="household-invites">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('household.role')}</Table.Th>
                <Table.Th>{t('household.createdBy')}</Table.Th>
                <Table.Th>{t('household.created')}</Table.Th>
                <Table.Th>{t('household.expires')}</Table.Th>
                <ActionsHeader width={100} />
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {invites.map((invite) => (
                <Table.Tr key={invite.id}>
                  <Table.Td>
                    <RoleBadge role={invite.role} />
                  </Table.Td>
                  <Table.Td>{nameOf(invite.createdBy)}</Table.Td>
                  <Table.Td>{f.date(invite.createdAt, 'datetime')}</Table.Td>
                  <Table.Td>{f.date(invite.expiresAt, 'datetime')}</Table.Td>
                  <Table.Td ta="right">
                    <Button size="xs" variant="default" color="red" onClick={() => void revokeInvite(invite.id)} loading={revoke.busy}>
                      {t('household.revoke')}
                    </Button>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Card>

      <RegistrationSettings />

      {inviting && <InviteDialog isOwner={isOwner} onClose={() => setInviting(false)} />}
      {resetting && <ResetPasswordDialog key={resetting.id} member={resetting} onClose={() => setResetting(null)} />}
      {deleting && <DeleteMemberDialog key={deleting.id} member={deleting} onClose={() => setDeleting(null)} />}
    </Stack>
  );
}
