import { Alert, Button, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { asRole, useAuth } from '../../lib/auth';
import { ChangePasswordForm } from '../../components/ChangePasswordForm';
import { AuthFrame } from './AuthFrame';

/**
 * After the owner reset this account's password, the server answers nothing but
 * user.changePassword and user.logout: this screen is all there is until a new password is set,
 * then the app opens.
 */
export function NewPasswordPage() {
  const { t } = useTranslation();
  const { session, signOut, updateUser, temporaryPassword } = useAuth();
  return (
    <AuthFrame title={t('auth.newPasswordTitle')}>
      <Alert color="yellow" role="status" mb="md">
        {t('auth.newPasswordText')}
      </Alert>
      <Text size="sm" fw={600} mb="sm">
        {session?.user.username}
        {session?.user.email ? ` · ${session.user.email}` : ''}
      </Text>
      <ChangePasswordForm
        temporary
        initialCurrent={temporaryPassword ?? ''}
        submitLabel={t('auth.saveNewPassword')}
        onDone={(account) => updateUser({ mustChangePassword: false, ...(asRole(account.role) ? { role: asRole(account.role) } : {}) })}
      />
      <Button variant="subtle" fullWidth mt="sm" onClick={() => void signOut()}>
        {t('nav.logout')}
      </Button>
    </AuthFrame>
  );
}
