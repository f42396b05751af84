import {
  type LoginResult,
  useCart,
  useLogin,
  useLogout,
  useMemberSession,
  useRegister,
  useSendPasswordReset,
  useVerifyEmail,
} from '@shopkit/react';
import { type FormEvent, type ReactNode, useId } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { useTitle } from '../../title.ts';

const MESSAGES: Record<string, string> = {
  invalidEmail: 'Check the e-mail address.',
  invalidPassword: 'The e-mail or password is wrong.',
  emailAlreadyExists: 'There is already an account with this e-mail. Log in instead.',
  resetPassword: 'Your password must be reset before you can log in.',
  missingCaptchaToken: 'Please confirm you are not a robot.',
  invalidCaptchaToken: 'Please confirm you are not a robot.',
};

function outcomeMessage(r: LoginResult | undefined, error: Error | null) {
  if (error) return error.message;
  if (!r || r.loginState === 'SUCCESS' || r.loginState === 'EMAIL_VERIFICATION_REQUIRED') return '';
  if (r.loginState === 'OWNER_APPROVAL_REQUIRED')
    return 'Your account is waiting for the shop owner’s approval.';
  return (r.errorCode && MESSAGES[r.errorCode]) || r.error || 'That did not work. Please try again.';
}

function Form({
  title,
  children,
  onSubmit,
  busy,
  submit,
  message,
  after,
}: {
  title: string;
  children: ReactNode;
  onSubmit: (f: FormData) => void;
  busy: boolean;
  submit: string;
  message: string;
  after?: ReactNode;
}) {
  useTitle(title);
  const handle = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    onSubmit(new FormData(e.currentTarget));
  };
  return (
    <section className="auth-card">
      <h1>{title}</h1>
      <form onSubmit={handle}>
        {children}
        <p role="alert" className="field-error">
          {message}
        </p>
        <button type="submit" className="button button-primary wide" disabled={busy}>
          {busy ? 'Please wait…' : submit}
        </button>
      </form>
      {after}
    </section>
  );
}

function Field({
  name,
  label,
  type = 'text',
  auto,
}: {
  name: string;
  label: string;
  type?: string;
  auto: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} type={type} autoComplete={auto} required />
    </div>
  );
}

const str = (f: FormData, k: string) => String(f.get(k) ?? '').trim();

export function Login() {
  const login = useLogin();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  return (
    <Form
      title="Log in"
      submit="Log in"
      busy={login.isPending}
      message={outcomeMessage(login.data, login.error)}
      onSubmit={(f) =>
        login.mutate(
          { email: str(f, 'email'), password: String(f.get('password') ?? '') },
          {
            onSuccess: (r) => {
              if (r.loginState === 'SUCCESS') navigate('/account');
              if (r.loginState === 'EMAIL_VERIFICATION_REQUIRED') navigate('/verify');
            },
          },
        )
      }
      after={
        <>
          {params.get('reset') && (
            <p className="notice notice-ok">Your password has been changed. Log in with the new one.</p>
          )}
          <p>
            <Link to="/forgot-password">Forgot your password?</Link>
          </p>
          <p>
            New here? <Link to="/register">Create an account</Link>
          </p>
        </>
      }
    >
      <Field name="email" label="E-mail" type="email" auto="email" />
      <Field name="password" label="Password" type="password" auto="current-password" />
    </Form>
  );
}

export function Register() {
  const register = useRegister();
  const navigate = useNavigate();
  return (
    <Form
      title="Create an account"
      submit="Create account"
      busy={register.isPending}
      message={outcomeMessage(register.data, register.error)}
      onSubmit={(f) =>
        register.mutate(
          {
            email: str(f, 'email'),
            password: String(f.get('password') ?? ''),
            profile: { firstName: str(f, 'firstName') },
          },
          {
            onSuccess: (r) => {
              if (r.loginState === 'SUCCESS') navigate('/account');
              if (r.loginState === 'EMAIL_VERIFICATION_REQUIRED') navigate('/verify');
            },
          },
        )
      }
      after={
        <p>
          Already have an account? <Link to="/login">Log in</Link>
        </p>
      }
    >
      <Field name="firstName" label="First name" auto="given-name" />
      <Field name="email" label="E-mail" type="email" auto="email" />
      <Field name="password" label="Password" type="password" auto="new-password" />
    </Form>
  );
}

export function Verify() {
  const verify = useVerifyEmail();
  const navigate = useNavigate();
  return (
    <Form
      title="Verify your e-mail"
      submit="Verify"
      busy={verify.isPending}
      message={outcomeMessage(verify.data, verify.error)}
      onSubmit={(f) =>
        verify.mutate(str(f, 'code'), {
          onSuccess: (r) => r.loginState === 'SUCCESS' && navigate('/account'),
        })
      }
    >
      <p>We have sent a code to your e-mail address. Enter it here to finish.</p>
      <Field name="code" label="Verification code" auto="one-time-code" />
    </Form>
  );
}

export function ForgotPassword() {
  const reset = useSendPasswordReset();
  return (
    <Form
      title="Reset your password"
      submit="Send reset link"
      busy={reset.isPending}
      message={reset.error?.message ?? ''}
      onSubmit={(f) =>
        reset.mutate({ email: str(f, 'email'), redirectUri: `${location.origin}/login?reset=1` })
      }
      after={
        reset.isSuccess && (
          <p className="notice notice-ok" role="status">
            If there is an account for this address, a link to reset the password is on its way.
          </p>
        )
      }
    >
      <Field name="email" label="E-mail" type="email" auto="email" />
    </Form>
  );
}

export function Account() {
  useTitle('Your account');
  const session = useMemberSession();
  const { data: cart } = useCart();
  const logout = useLogout();
  if (session.role === 'none') return null;
  if (!session.member) return <Navigate to="/login" replace />;
  const items = cart?.lineItems.reduce((n, l) => n + l.quantity, 0) ?? 0;
  return (
    <section className="auth-card">
      <h1>Your account</h1>
      <p>You are logged in.</p>
      <p>
        Your cart has {items} {items === 1 ? 'item' : 'items'}. <Link to="/cart">View cart</Link>
      </p>
      {logout.error && (
        <p role="alert" className="field-error">
          {logout.error.message}
        </p>
      )}
      <button
        type="button"
        className="button"
        disabled={logout.isPending}
        onClick={() => logout.mutate({ returnUrl: `${location.origin}/` })}
      >
        Log out
      </button>
    </section>
  );
}
