import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Role } from '../../../lib/auth';

const ROLE_COLORS: Record<Role, string> = { owner: 'grape', admin: 'blue', member: 'gray' };

export function RoleBadge({ role }: { role: Role }) {
  const { t } = useTranslation();
  return (
    <Badge variant="light" color={ROLE_COLORS[role]}>
      {t(`household.roles.${role}`)}
    </Badge>
  );
}
