import { useState, type FormEvent } from 'react';
import { ActionIcon, Badge, Button, Code, Group, Menu, Modal, SegmentedControl, Select, Skeleton, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useTranslation } from 'react-i18next';
import { call, type ResultOf } from '../api/client';
import { CopyButton, Empty, ErrorNote } from '../components/common';
import { useAuth, type Role } from '../lib/auth';
import { useAction, useApi } from '../lib/data';
import { useFormat } from '../lib/format';

type Household = ResultOf<'user.listMembers'>;
type Member = Household['members'][number];
type Policy = 'open' | 'invite' | 'closed';

const RANK: Record<Role, number> = { owner: 2, admin: 1, member: 0 };
const ROLE_COLORS: Record<Role, string> = { owner: 'grape', admin: 'blue', member: 'gray' };

export function RoleBadge({ role }: { role: Role }) {
  const { t } = useTranslation();
  return (
    <Badge variant="light" color={ROLE_COLORS[role]}>
      {t(`household.roles.${role}`)}
    </Badge>
  );
}

/**
 * Settings → Household (owner and admins): the accounts of this PennyPost with their role and
 * state, invite codes, and who may sign up. Owner and admins act on accounts below their rank;
 * only the owner names admins.
 */
export default function HouseholdPanel() {
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
      <section className="pp-card" aria-labelledby="hh-members">
        <Group justify="space-between" mb="xs">
          <Title order={2} size="h5" id="hh-members">
            {t('household.title')}
          </Title>
          <Button onClick={() => setInviting(true)}>{t('household.invite')}</Button>
        </Group>
        <Text size="sm" c="dimmed" mb="sm">
          {t('household.hint')}
        </Text>
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
                  <Table.Th w={40}>
                    <span className="pp-visually-hidden">{t('assets.actions')}</span>
                  </Table.Th>
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
                        <Menu position="bottom-end" withinPortal>
                          <Menu.Target>
                            <ActionIcon variant="subtle" aria-label={t('household.actionsFor', { name: m.username })} loading={act.busy}>
                              ⋯
                            </ActionIcon>
                          </Menu.Target>
                          <Menu.Dropdown>
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
                          </Menu.Dropdown>
                        </Menu>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </div>
        )}
      </section>

      <section className="pp-card" aria-labelledby="hh-invites">
        <Title order={2} size="h5" id="hh-invites" mb="sm">
          {t('household.invites')}
        </Title>
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
                <Table.Th w={100}>
                  <span className="pp-visually-hidden">{t('assets.actions')}</span>
                </Table.Th>
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
      </section>

      <RegistrationSettings />

      {inviting && <InviteDialog isOwner={isOwner} onClose={() => setInviting(false)} />}
      {resetting && <ResetDialog key={resetting.id} member={resetting} onClose={() => setResetting(null)} />}
      {deleting && <DeleteDialog key={deleting.id} member={deleting} onClose={() => setDeleting(null)} />}
    </Stack>
  );
}

/** A code shown once, large and selectable, with a copy button. */
function OnceSecret({ value, label, copyLabel, testId }: { value: string; label: string; copyLabel: string; testId: string }) {
  return (
    <div>
      <Text size="sm" fw={500} mb={4}>
        {label}
      </Text>
      <Group gap="xs" wrap="nowrap">
        <Code fz="lg" px="sm" py={6} data-testid={testId} aria-label={label}>
          {value}
        </Code>
        <CopyButton value={value} label={copyLabel} />
      </Group>
    </div>
  );
}

function InviteDialog({ isOwner, onClose }: { isOwner: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const f = useFormat();
  const create = useAction();
  const [role, setRole] = useState<'member' | 'admin'>('member');
  const [made, setMade] = useState<ResultOf<'user.createInvite'> | null>(null);
  const submit = async (event: FormEvent) => {
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
        <form onSubmit={submit}>
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

function ResetDialog({ member, onClose }: { member: Member; onClose: () => void }) {
  const { t } = useTranslation();
  const reset = useAction();
  const [temporary, setTemporary] = useState<string | null>(null);
  const confirm = async () => {
    const done = await reset.run(() => call('user.resetPassword', { userId: member.id }));
    if (done) setTemporary(done.temporaryPassword);
  };
  return (
    <Modal opened onClose={() => !reset.busy && onClose()} title={t('household.resetTitle', { name: member.username })} centered>
      {temporary ? (
        <Stack gap="sm">
          <OnceSecret value={temporary} label={t('household.tempLabel')} copyLabel={t('household.copyTemp')} testId="temporary-password" />
          <Text size="sm">{t('household.tempText', { name: member.username })}</Text>
          <Group justify="flex-end">
            <Button onClick={onClose}>{t('household.done')}</Button>
          </Group>
        </Stack>
      ) : (
        <Stack gap="sm">
          <Text size="sm">{t('household.resetText', { name: member.username })}</Text>
          <ErrorNote error={reset.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={reset.busy}>
              {t('common.cancel')}
            </Button>
            <Button color="orange" onClick={() => void confirm()} loading={reset.busy}>
              {t('household.resetPassword')}
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}

function DeleteDialog({ member, onClose }: { member: Member; onClose: () => void }) {
  const { t } = useTranslation();
  const remove = useAction();
  const [typed, setTyped] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (typed !== member.username) return;
    const done = await remove.run(() => call('user.delete', { userId: member.id, confirm: typed }));
    if (done) {
      notifications.show({ color: 'teal', message: t('household.deleted', { name: member.username }) });
      onClose();
    }
  };
  return (
    <Modal opened onClose={() => !remove.busy && onClose()} title={t('household.deleteTitle', { name: member.username })} centered>
      <form onSubmit={submit}>
        <Stack gap="sm">
          <Text size="sm">{t('household.deleteText')}</Text>
          <TextInput label={t('household.deleteType', { name: member.username })} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" spellCheck={false} data-autofocus />
          <ErrorNote error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={remove.busy}>
              {t('common.cancel')}
            </Button>
            <Button type="submit" color="red" loading={remove.busy} disabled={typed !== member.username}>
              {t('household.deleteConfirm')}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

const INVITE_HOURS = [24, 72, 168, 720];

/** Who may sign up, from this computer and from the network, and how long invite codes last (settings registration.*). */
function RegistrationSettings() {
  const { t } = useTranslation();
  const settings = useApi('settings.get', {});
  const save = useAction();
  const registration = settings.data?.registration;
  const update = async (patch: { fromThisComputer?: Policy; fromNetwork?: Policy; inviteHours?: number }) => {
    const done = await save.run(() => call('settings.update', { registration: patch }));
    if (done) notifications.show({ color: 'teal', message: t('household.saved') });
  };
  const policies = (['open', 'invite', 'closed'] as const).map((value) => ({ value, label: t(`household.policies.${value}`) }));
  const asPolicy = (value: string | null): Policy | null => (value === 'open' || value === 'invite' || value === 'closed' ? value : null);
  const hours = registration ? [...new Set([...INVITE_HOURS, registration.inviteHours])].sort((a, b) => a - b) : INVITE_HOURS;
  const hoursLabel = (h: number) => (h % 24 === 0 ? t('household.days', { count: h / 24 }) : t('household.hours', { count: h }));
  return (
    <section className="pp-card" aria-labelledby="hh-registration">
      <Title order={2} size="h5" id="hh-registration" mb="xs">
        {t('household.registration')}
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        {t('household.registrationHint')}
      </Text>
      <ErrorNote error={settings.error ?? save.error} onRetry={settings.error ? settings.reload : undefined} />
      {!registration ? (
        <Skeleton h={60} />
      ) : (
        <Group align="flex-start" gap="md">
          <Select
            label={t('household.fromThisComputer')}
            data={policies}
            value={registration.fromThisComputer}
            allowDeselect={false}
            disabled={save.busy}
            w={220}
            onChange={(value) => {
              const policy = asPolicy(value);
              if (policy && policy !== registration.fromThisComputer) void update({ fromThisComputer: policy });
            }}
          />
          <Select
            label={t('household.fromNetwork')}
            data={policies}
            value={registration.fromNetwork}
            allowDeselect={false}
            disabled={save.busy}
            w={220}
            onChange={(value) => {
              const policy = asPolicy(value);
              if (policy && policy !== registration.fromNetwork) void update({ fromNetwork: policy });
            }}
          />
          <Select
            label={t('household.inviteHours')}
            data={hours.map((h) => ({ value: String(h), label: hoursLabel(h) }))}
            value={String(registration.inviteHours)}
            allowDeselect={false}
            disabled={save.busy}
            w={180}
            onChange={(value) => {
              const h = Number(value);
              if (Number.isInteger(h) && h !== registration.inviteHours) void update({ inviteHours: h });
            }}
          />
        </Group>
      )}
    </section>
  );
}
