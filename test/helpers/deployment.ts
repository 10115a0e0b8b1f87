import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Deployment } from '@switchboard/gateway';
import { createLogger } from '@switchboard/runtime';

/** A self-redeploying gateway started from an env file in a fresh folder, as `switchboard start` runs it. */
export interface TestDeployment {
  readonly deployment: Deployment;
  readonly dir: string;
  readonly envFile: string;
  readonly orchestratorToken: string;
  /** The current gateway's URL (the port stays the same across deploys). */
  readonly url: string;
  call(method: string, path: string, options?: { token?: string; json?: unknown; headers?: Record<string, string>; body?: string }): Promise<Response>;
  close(): Promise<void>;
}

/** `env` stands for the process environment, whose settings win over the env file's. */
export async function startTestDeployment(envText = '', env: Record<string, string> = {}): Promise<TestDeployment> {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-deploy-'));
  const envFile = join(dir, '.env');
  const orchestratorToken = `sb_orch_test_${randomBytes(24).toString('base64url')}`;
  if (envText) writeFileSync(envFile, envText, { mode: 0o600 });
  const deployment = await Deployment.start({
    envFile,
    env,
    overrides: {
      PORT: 0,
      DATA_DIR: join(dir, 'data'),
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      ORCHESTRATOR_TOKEN: orchestratorToken,
      SHUTDOWN_GRACE_SECONDS: 5,
    },
    logger: (settings) => createLogger({ level: settings.LOG_LEVEL, pretty: false }),
  });
  const url = deployment.current.url;
  return {
    deployment,
    dir,
    envFile,
    orchestratorToken,
    url,
    call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body = options.body;
      if (options.json !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = JSON.stringify(options.json);
      }
      return fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    },
    async close() {
      await deployment.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
