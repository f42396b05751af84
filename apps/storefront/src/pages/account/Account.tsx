import {
  type LoginResult,
  MemberSessionError,
  useCart,
  useLogin,
  useLogout,
  useMemberSession,
  useRegister,
  useResendVerification,
  useSendPasswordReset,
  useVerifyEmail,
} from '@shopkit/react';
import { ApplicationError } from '@shopkit/sdk';
import {
  createContext,
  type FormEvent,
  type ReactNode,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { ErrorState, Skeleton } from '../../components/States.tsx';
import { config } from '../../config.ts';
import { humanMessage } from '../../errors.ts';
import { useTitle } from '../../title.ts';
import {
  type FieldErrors,
  fieldProblem,
  MIN_PASSWORD,
  outcomeMessage,
  PASSWORD_HINT,
  registrationFieldErrors,
} from './messages.ts';
import { pendingVerification } from './verification.ts';

const LOG_IN_AGAIN = 'Log in again to get a new code.';

const ErrorsContext = createContext<FieldErrors>({});

function Form({
  title,
  children,
  onSubmit,
  busy,
  attempt,
  reset,
  submit,
  message,
  fieldErrors = {},
  status,
  before,
  after,
}: {
  title: string;
  children: ReactNode;
  onSubmit: (f: FormData) => void;
  busy: boolean;
  /** When the form's mutation was last sent (its `submittedAt`): a new attempt, even one that failed before `busy` was ever seen. */
  attempt: number;
  /**
   * Forgets the last answer (the mutation's `reset`): a new attempt stopped by the form's own
   * checks was never sent, and the last one's refusal ("There is already an account with this
   * e-mail") said nothing true of it.
   */
  reset: () => void;
  submit: string;
  message: string;
  /** Errors from the server, by field name; the form adds its own checks before sending. */
  fieldErrors?: FieldErrors;
  /**
   * What the form's answer has to say when it is not a refusal (a reset link on its way; the
   * account ready but not logged in), in a status region there before it: one added with its
   * words is not read out, and focus stays on the button.
   */
  status?: ReactNode;
  /** Said before the form, right after its heading (what the page came to say, read first). */
  before?: ReactNode;
  after?: ReactNode;
}) {
  useTitle(title);
  const [checked, setChecked] = useState<FieldErrors>({});
  // Sent and not answered yet: set at once, before `busy` (a re-render later) disables the button,
  // so a double click or a second Enter sends the form once.
  const sending = useRef(false);
  const handle = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (busy || sending.current) return;
    const inputs = [...e.currentTarget.querySelectorAll('input')];
    const problems = Object.fromEntries(
      inputs.map((i) => [i.name, fieldProblem(i)]).filter(([, p]) => p),
    ) as FieldErrors;
    setChecked(problems);
    const first = inputs.find((i) => problems[i.name]);
    if (first) {
      reset();
      first.focus();
    } else {
      sending.current = true;
      onSubmit(new FormData(e.currentTarget));
    }
  };
  const errors = Object.keys(checked).length ? checked : fieldErrors;
  // The button is disabled while the form is sent, which drops keyboard focus to the page's body:
  // once the answer is in (a refusal stays on this page), focus goes back to it.
  const button = useRef<HTMLButtonElement>(null);
  const form = useRef<HTMLFormElement>(null);
  const wasBusy = useRef(busy);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new attempt (`attempt`) that ended before `busy` was ever rendered must free the guard too
  useEffect(() => {
    // Answered (also when the answer came so fast that `busy` was never rendered): sendable again.
    if (!busy) sending.current = false;
    // To the first field the answer found fault with (its words are its description), else the button.
    if (wasBusy.current && !busy && (!document.activeElement || document.activeElement === document.body)) {
      const faulty = Object.keys(fieldErrors).map((name) => `[name="${CSS.escape(name)}"]`);
      const field = faulty.length ? form.current?.querySelector<HTMLElement>(faulty.join(',')) : null;
      (field ?? button.current)?.focus();
    }
    wasBusy.current = busy;
  }, [busy, attempt]);
  return (
    <section className="auth-card">
      <h1>{title}</h1>
      {before}
      <form ref={form} onSubmit={handle} noValidate>
        <ErrorsContext.Provider value={errors}>{children}</ErrorsContext.Provider>
        <p role="alert" className="field-error">
          {message}
        </p>
        <button ref={button} type="submit" className="button button-primary wide" disabled={busy}>
          {busy ? 'Please wait…' : submit}
        </button>
      </form>
      <div role="status">{status}</div>
      {after}
    </section>
  );
}

function Field({
  name,
  label,
  type = 'text',
  auto,
  hint,
  minLength,
  inputMode,
}: {
  name: string;
  label: string;
  type?: string;
  auto: string;
  hint?: string;
  minLength?: number;
  /** The keyboard a phone shows (`numeric` for the six-digit code). */
  inputMode?: 'numeric';
}) {
  const id = useId();
  const error = useContext(ErrorsContext)[name];
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} className="hint">
          {hint}
        </p>
      )}
      <input
        id={id}
        name={name}
        type={type}
        autoComplete={auto}
        inputMode={inputMode}
        required
        minLength={minLength}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
      />
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

const str = (f: FormData, k: string) => String(f.get(k) ?? '').trim();

/** Where a login, registration or verification goes next. */
function useAfterLogin() {
  const navigate = useNavigate();
  return (r: LoginResult) => {
    if (r.loginState === 'SUCCESS') {
      pendingVerification.set(undefined);
      // In place of the spent step (the login form, the used code): Back goes to where the member
      // was before, not to a form for a login that is done.
      navigate('/account', { replace: true });
    }
    // Created (or verified) and waiting for the owner: the state token is spent, and the form says so.
    if (r.loginState === 'OWNER_APPROVAL_REQUIRED') pendingVerification.set(undefined);
    if (r.loginState === 'EMAIL_VERIFICATION_REQUIRED') {
      pendingVerification.set(r.data?.stateToken);
      // The login, sign-up and verification forms are one place in the history (see `FORM_LINK`).
      navigate('/verify', { replace: true });
    }
  };
}

const hooks = { silentLoginTimeoutMs: config.silentLoginTimeoutMs };

/**
 * A link from one login form to another (log in ↔ sign up) takes the form's place in the history,
 * as the verification step and the account page do: Back from the account goes to where the
 * member was before the first form, not through spent forms that send a member on to the account.
 */
const FORM_LINK = { replace: true } as const;

/**
 * Whether a member already logged in (on arrival, or in another tab) is on a login or
 * registration form: they go on to their account, not to a second login. A login of this form's
 * own (`sending`) makes the session a member's before it answers, and goes on by its own answer.
 */
function useLoggedInAlready(sending: boolean) {
  return useMemberSession().member && !sending;
}

export function Login() {
  const login = useLogin(hooks);
  const next = useAfterLogin();
  const [params] = useSearchParams();
  // Back from a password reset: the session stored here (if any) was ended by it, so the form
  // and its notice stay (the account page showed "You are logged in" until the session's end
  // came back to a login page without the notice).
  const away = useLoggedInAlready(login.isPending || login.isSuccess) && !params.get('reset');
  if (away) return <Navigate to="/account" replace />;
  return (
    <Form
      title="Log in"
      submit="Log in"
      busy={login.isPending}
      attempt={login.submittedAt}
      reset={login.reset}
      message={
        login.error instanceof MemberSessionError
          ? 'Your password was right, but the login could not finish. Please try again.'
          : outcomeMessage(login.data, login.error)
      }
      onSubmit={(f) =>
        login.mutate(
          { email: str(f, 'email'), password: String(f.get('password') ?? '') },
          { onSuccess: next },
        )
      }
      // Before the form: it was after it, read (and reached by keyboard) only past the form.
      before={
        params.get('reset') && (
          <p className="notice notice-ok">Your password has been changed. Log in with the new one.</p>
        )
      }
      after={
        <>
          <p>
            <Link to="/forgot-password">Forgot your password?</Link>
          </p>
          <p>
            New here?{' '}
            <Link to="/register" {...FORM_LINK}>
              Create an account
            </Link>
          </p>
        </>
      }
    >
      <Field name="email" label="E-mail" type="email" auto="username" />
      <Field name="password" label="Password" type="password" auto="current-password" />
    </Form>
  );
}

/**
 * The account was created (and its e-mail verified) but waits for the shop owner's approval: not
 * a refusal (said in the form's status region, not its alert), and nothing to send again.
 */
const awaitingApproval = (r: LoginResult | undefined) => r?.loginState === 'OWNER_APPROVAL_REQUIRED';

function AwaitingApproval() {
  return (
    <p className="notice notice-ok">
      Your account is waiting for the shop owner’s approval. You can log in once it is approved.
    </p>
  );
}

/** The account exists (the platform said so) but the member session did not start. */
function ReadyLogIn({ children }: { children: ReactNode }) {
  return (
    <div className="notice notice-ok">
      <p>{children}</p>
      <Link to="/login" className="button button-primary">
        Log in
      </Link>
    </div>
  );
}

export function Register() {
  const register = useRegister(hooks);
  const next = useAfterLogin();
  const fieldErrors = registrationFieldErrors(register.data);
  const ready = register.error instanceof MemberSessionError;
  const approval = awaitingApproval(register.data);
  const away = useLoggedInAlready(register.isPending || register.isSuccess);
  if (away) return <Navigate to="/account" replace />;
  return (
    <Form
      title="Create an account"
      submit="Create account"
      busy={register.isPending}
      attempt={register.submittedAt}
      reset={register.reset}
      fieldErrors={fieldErrors}
      message={
        Object.keys(fieldErrors).length
          ? 'Check the details above.'
          : approval
            ? ''
            : outcomeMessage(register.data, register.error)
      }
      onSubmit={(f) =>
        register.mutate(
          {
            email: str(f, 'email'),
            password: String(f.get('password') ?? ''),
            profile: { firstName: str(f, 'firstName') },
          },
          { onSuccess: next },
        )
      }
      status={
        approval ? (
          <AwaitingApproval />
        ) : (
          ready && (
            <ReadyLogIn>
              Your account is ready, but we could not log you in automatically. Log in to continue.
            </ReadyLogIn>
          )
        )
      }
      after={
        !ready && (
          <p>
            Already have an account?{' '}
            <Link to="/login" {...FORM_LINK}>
              Log in
            </Link>
          </p>
        )
      }
    >
      <Field name="firstName" label="First name" auto="given-name" />
      <Field name="email" label="E-mail" type="email" auto="username" />
      <Field
        name="password"
        label="Password"
        type="password"
        auto="new-password"
        hint={PASSWORD_HINT}
        minLength={MIN_PASSWORD}
      />
    </Form>
  );
}

/** True when the platform no longer knows the pending verification (expired, or out of codes). */
const verificationGone = (e: unknown) =>
  e instanceof ApplicationError && (e.code === 'VERIFICATION_FAILED' || e.status === 429);

export function Verify() {
  // Read once: the state token of this tab's login or registration (it survives a reload).
  const [stateToken] = useState(pendingVerification.get);
  const verify = useVerifyEmail(hooks);
  const resend = useResendVerification();
  // A new code on its way: set in the click itself (`isPending` renders a tick later, after a
  // double click's second click), so that a double click does not spend two of the few new codes.
  // The button is aria-disabled meanwhile, not disabled: a keyboard user's focus stays on it.
  const resending = useRef(false);
  const sendNewCode = () => {
    if (resending.current || !stateToken) return;
    resending.current = true;
    resend.mutate(stateToken, { onSettled: () => (resending.current = false) });
  };
  const next = useAfterLogin();
  const session = useMemberSession();
  // Its read failing with no session known: the shop could not give this browser one (unreachable),
  // so there is none of a member's to wait for.
  const noSession = !!useCart().error;
  const title = 'Verify your e-mail';
  useTitle(title);
  // No session known yet (the stored tokens are being read): not "log in again" to a member.
  if (!stateToken && session.role === 'none' && !noSession)
    return (
      <section className="auth-card">
        <h1>{title}</h1>
        <Skeleton lines={2} label="Loading" />
      </section>
    );
  // A member (a link in the e-mail opened again, Back or a bookmark after the login): nothing to
  // verify in this tab, and no new login needed.
  if (!stateToken && session.member)
    return (
      <section className="auth-card">
        <h1>{title}</h1>
        <p>You are logged in: there is no code to enter.</p>
        <p>
          <Link to="/account" className="button button-primary">
            Go to your account
          </Link>
        </p>
      </section>
    );
  if (!stateToken)
    return (
      <section className="auth-card">
        <h1>{title}</h1>
        <p>There is no e-mail verification waiting in this tab. Codes expire after 10 minutes.</p>
        <p>
          <Link to="/login" className="button button-primary">
            {LOG_IN_AGAIN}
          </Link>
        </p>
      </section>
    );
  const verified = verify.error instanceof MemberSessionError;
  // The code was right: the account now waits for the owner, and no new code is of use.
  const approval = awaitingApproval(verify.data);
  // A refused code is said beside its field (described by it, and focused), not only in the alert.
  const codeRefused = verify.data?.errorCode === 'VERIFICATION_FAILED';
  return (
    <Form
      title={title}
      submit="Verify"
      busy={verify.isPending}
      attempt={verify.submittedAt}
      reset={verify.reset}
      fieldErrors={codeRefused ? { code: outcomeMessage(verify.data, null) } : {}}
      message={codeRefused || approval ? '' : outcomeMessage(verify.data, verify.error)}
      onSubmit={(f) =>
        verify.mutate(
          { code: str(f, 'code'), stateToken },
          {
            onSuccess: next,
            // Verified, only the session did not start: the state token is spent.
            onError: (e) => e instanceof MemberSessionError && pendingVerification.set(undefined),
          },
        )
      }
      status={
        approval ? (
          <AwaitingApproval />
        ) : (
          verified && <ReadyLogIn>Your e-mail address is verified. Log in to continue.</ReadyLogIn>
        )
      }
      after={
        !verified &&
        !approval && (
          <>
            <p>
              No code?{' '}
              <button
                type="button"
                className="link-button"
                aria-disabled={resend.isPending}
                onClick={sendNewCode}
              >
                Send a new code
              </button>
            </p>
            <p role="status" className={resend.error ? 'field-error' : 'muted'}>
              {resend.isSuccess && 'A new code is on its way. It replaces the previous one.'}
              {resend.error && (verificationGone(resend.error) ? LOG_IN_AGAIN : humanMessage(resend.error))}
            </p>
            <p>
              Or <Link to="/login">log in again</Link>: that sends a new code too.
            </p>
          </>
        )
      }
    >
      <p>We have sent a code to your e-mail address. Enter it here to finish.</p>
      <Field name="code" label="Verification code" auto="one-time-code" inputMode="numeric" />
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
      attempt={reset.submittedAt}
      reset={reset.reset}
      message={reset.error ? humanMessage(reset.error) : ''}
      onSubmit={(f) =>
        reset.mutate({ email: str(f, 'email'), redirectUri: `${location.origin}/login?reset=1` })
      }
      status={
        reset.isSuccess && (
          <p className="notice notice-ok">
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
  const { data: cart, isPending: cartPending, error: cartError, refetch } = useCart();
  const navigate = useNavigate();
  // The platform's logout page by a load. The shop's own page (the platform could not be reached:
  // offline, a 5xx) in the app, once the logout is done (`onLogOut`): a full load of it would be
  // the browser's offline page, and the page is told that the session was ended here only.
  const logout = useLogout((url) => {
    if (!url.startsWith(`${location.origin}/`)) location.assign(url);
  });
  const leaving = useRef(false);
  const onLogOut = () => {
    if (leaving.current) return;
    leaving.current = true;
    const returnUrl = `${location.origin}/`;
    logout.mutateAsync({ returnUrl }).then(
      ({ logoutUrl = returnUrl, warning }) => {
        if (!logoutUrl.startsWith(`${location.origin}/`)) return;
        navigate(
          logoutUrl.slice(location.origin.length),
          warning ? { state: { loggedOutHereOnly: true } } : undefined,
        );
      },
      // Said by `logout.error`.
      () => {
        leaving.current = false;
      },
    );
  };
  // No session known yet (the stored tokens are being read, or the first visitor token is on its
  // way), or a logout under way: the loading skeleton, not a blank page. No session could be had
  // (the shop unreachable for a browser that had none): said, with "Try again", not loading forever.
  if (session.role === 'none' && cartError && !logout.isPending && !logout.isSuccess)
    return (
      <ErrorState error={cartError} retry={() => refetch()} title="Your account could not be loaded" page />
    );
  if (session.role === 'none')
    return (
      <section className="auth-card">
        <Skeleton lines={3} label="Loading your account" />
      </section>
    );
  if (!session.member) return <Navigate to="/login" replace />;
  const items = cart?.lineItems.reduce((n, l) => n + l.quantity, 0) ?? 0;
  // A count only once the cart is read: not "0 items" while it loads, nor when it could not be read.
  // (`null`: no cart yet, none in it.)
  const count = cartPending
    ? 'Your cart is loading…'
    : cart === undefined
      ? 'Your cart could not be read just now.'
      : `Your cart has ${items} ${items === 1 ? 'item' : 'items'}.`;
  return (
    <section className="auth-card">
      <h1>Your account</h1>
      <p>You are logged in.</p>
      <p>
        {count} <Link to="/cart">View cart</Link>
      </p>
      {logout.error && (
        <p role="alert" className="field-error">
          {humanMessage(logout.error)}
        </p>
      )}
      <button type="button" className="button" disabled={logout.isPending} onClick={onLogOut}>
        Log out
      </button>
    </section>
  );
}
