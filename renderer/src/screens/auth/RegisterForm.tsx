import { useState, type SubmitEvent } from 'react';
import { Alert, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { paramLimits } from '../../api/param-limits';
import { ApiCallError, call, type ResultOf } from '../../api/client';
import { useAuth } from '../../lib/auth';
import { useErrorText } from '../../lib/errors';
import { currentLanguage } from '../../i18n';
import { DEVICE_INFO } from './device';

type RegistrationInfo = ResultOf<'user.registrationInfo'>;

/**
 * Sign-up as the server allows it for this caller (user.registrationInfo): open, with an invite
 * code, or closed; the first account of a data dir is its owner.
 */
export function RegisterForm({ info, onRefused }: { info: RegistrationInfo | undefined; onRefused: () => void }) {
  const { t } = useTranslation();
  const { signIn } = useAuth();
  const errorText = useErrorText();
  const [username, setUsername] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [inviteCode, setInviteCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiCallError | null>(null);
  const mismatch = confirm.length > 0 && confirm !== password;
  const tooShort = password.length > 0 && password.length < 8;
  const signUp = info?.signUp ?? 'open';
  const firstAccount = info ? !info.hasOwner : false;
  // An invite may also carry a role (an admin) where sign-ups are open.
  const inviteShown = info !== undefined && info.hasOwner && signUp !== 'closed';
  const inviteRequired = signUp === 'invite';

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (mismatch || tooShort || (inviteRequired && !inviteCode.trim())) return;
    setBusy(true);
    setError(null);
    try {
      const code = inviteShown ? inviteCode.trim() : '';
      signIn(
        await call('user.register', {
          username: username.trim(),
          email: email.trim(),
          password,
          ...(code ? { inviteCode: code } : {}),
          language: currentLanguage(),
          deviceInfo: DEVICE_INFO,
        }),
      );
    } catch (err) {
      setError(err as ApiCallError);
      // The policy may have changed since this screen opened: follow it.
      if (err instanceof ApiCallError && err.code === 403) onRefused();
    } finally {
      setBusy(false);
    }
  };

  if (signUp === 'closed') {
    return (
      <Alert color="yellow" role="status">
        {t('auth.closed')}
      </Alert>
    );
  }
  const field = error?.field ?? null;
  const fields = ['username', 'email', 'password', ...(inviteShown ? ['inviteCode'] : [])];
  const general = error && !fields.includes(field ?? '') ? (error.code === 429 ? t('auth.tooMany') : errorText(error)) : null;
  return (
    <form onSubmit={(event) => void submit(event)} noValidate aria-label={firstAccount ? t('auth.ownerTitle') : t('auth.createAccount')}>
      <Stack gap="sm">
        {firstAccount && (
          <Text size="sm" data-testid="owner-hint">
            {t('auth.ownerHint')}
          </Text>
        )}
        {inviteShown && (
          <TextInput
            label={inviteRequired ? t('auth.inviteCode') : t('auth.inviteCodeOptional')}
            description={t('auth.inviteCodeHint')}
            autoComplete="off"
            spellCheck={false}
            required={inviteRequired}
            value={inviteCode}
            onChange={(e) => setInviteCode(e.currentTarget.value)}
            error={field === 'inviteCode' ? errorText(error) : null}
            maxLength={paramLimits('user.register', 'inviteCode').maxLength}
            autoFocus={inviteRequired}
          />
        )}
        <TextInput
          label={t('auth.username')}
          description={t('auth.usernameHint')}
          autoComplete="username"
          required
          value={username}
          onChange={(e) => setUsername(e.currentTarget.value)}
          error={field === 'username' ? errorText(error) : null}
          autoFocus={!inviteRequired}
        />
        <TextInput
          label={t('auth.email')}
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.currentTarget.value)}
          maxLength={paramLimits('user.register', 'email').maxLength}
          error={field === 'email' ? errorText(error) : null}
        />
        <PasswordInput
          label={t('auth.password')}
          description={t('auth.passwordHint')}
          autoComplete="new-password"
          required
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          error={tooShort ? t('auth.passwordTooShort') : field === 'password' ? errorText(error) : null}
        />
        <PasswordInput
          label={t('auth.confirmPassword')}
          autoComplete="new-password"
          required
          value={confirm}
          onChange={(e) => setConfirm(e.currentTarget.value)}
          error={mismatch ? t('auth.mismatch') : null}
        />
        {general && (
          <Alert color="red" role="alert">
            {general}
          </Alert>
        )}
        <Button type="submit" loading={busy} disabled={!username || !email || !password || !confirm || mismatch || tooShort || (inviteRequired && !inviteCode.trim())}>
          {t('auth.createAccount')}
        </Button>
      </Stack>
    </form>
  );
}
