import type { AdminSessions } from '../admin/sessions.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { SessionState, SignInBody } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';

/** Admin UI sign-in and sign-out: the orchestrator token for an HttpOnly session cookie. */
export function adminSessionRoutes(sessions: AdminSessions): RouteDefinition[] {
  const common = { tag: 'Admin', auth: 'public' as const };
  const noStore = { 'cache-control': 'no-store' };
  return [
    {
      ...common,
      method: 'POST',
      path: '/admin/api/session',
      operationId: 'adminSignIn',
      summary: 'Exchange the orchestrator token for an HttpOnly, SameSite=Strict session cookie (Secure outside loopback).',
      body: SignInBody,
      responses: { 200: { description: 'Signed in; the cookie is set.', schema: SessionState }, ...errorResponses(400, 401, 403, 415, 429) },
      async handler({ body, request }: RouteContext<SignInBody>) {
        const { cookie, csrf, expiresAt } = await sessions.signIn(body.token, request);
        return json(200, { signedIn: true, expiresAt, csrfToken: csrf }, { ...noStore, 'set-cookie': cookie });
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/session',
      operationId: 'adminSession',
      summary: 'Whether the session cookie is valid, its expiry, and the CSRF token the page sends on changes.',
      responses: { 200: { description: 'Session state.', schema: SessionState } },
      async handler({ request }: RouteContext) {
        const session = await sessions.session(request);
        return json(200, session ? { signedIn: true, expiresAt: session.expiresAt, csrfToken: session.csrf } : { signedIn: false }, noStore);
      },
    },
    {
      ...common,
      method: 'DELETE',
      path: '/admin/api/session',
      operationId: 'adminSignOut',
      summary: "Sign out: every admin session ends (on every gateway) and this one's cookie is cleared. A valid session must send its X-CSRF-Token.",
      responses: { 200: { description: 'Signed out.', schema: SessionState }, ...errorResponses(403) },
      async handler({ request }: RouteContext) {
        return json(200, { signedIn: false }, { ...noStore, 'set-cookie': await sessions.signOut(request) });
      },
    },
  ];
}
