import { readFileSync } from 'node:fs';
import { credsAuthenticator, nkeyAuthenticator, type ConnectionOptions } from '@nats-io/transport-node';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { Settings } from '../settings/schema.js';

type NatsSettings = Pick<
  Settings,
  | 'NATS_URL'
  | 'NATS_USER'
  | 'NATS_PASSWORD'
  | 'NATS_TOKEN'
  | 'NATS_NKEY_SEED_FILE'
  | 'NATS_CREDS_FILE'
  | 'NATS_TLS_CA_FILE'
  | 'NATS_TLS_CERT_FILE'
  | 'NATS_TLS_KEY_FILE'
>;

/**
 * The `nats` client options of a cluster process from its settings: the servers of NATS_URL (credentials
 * written in a URL move to `user`/`pass`, or `token` for a bare name), one way to authenticate, and TLS,
 * required when a URL says `tls://` or any NATS_TLS_* file is set. Seed and creds files are read at each
 * connect, so a rotated file is picked up on reconnect. Refuses contradictory settings, naming them.
 */
export function natsConnectionOptions(settings: NatsSettings): ConnectionOptions {
  const urls = settings.NATS_URL.split(',').map((s) => s.trim()).filter(Boolean);
  let tlsRequired = false;
  let urlUser = '';
  let urlPass = '';
  const servers = urls.map((raw) => {
    const url = new URL(raw);
    if (url.protocol === 'tls:') tlsRequired = true;
    if (url.username) {
      urlUser = decodeURIComponent(url.username);
      urlPass = decodeURIComponent(url.password);
    }
    return `${url.hostname}:${url.port || '4222'}`;
  });
  const user = settings.NATS_USER || urlUser;
  const pass = settings.NATS_PASSWORD || urlPass;
  const ways = [
    user !== '' && 'NATS_USER',
    settings.NATS_TOKEN !== '' && 'NATS_TOKEN',
    settings.NATS_NKEY_SEED_FILE !== '' && 'NATS_NKEY_SEED_FILE',
    settings.NATS_CREDS_FILE !== '' && 'NATS_CREDS_FILE',
  ].filter(Boolean);
  const problems: string[] = [];
  if (ways.length > 1) problems.push(`set one way to authenticate to NATS, not ${ways.join(' and ')}`);
  if (settings.NATS_PASSWORD !== '' && user === '') problems.push('NATS_PASSWORD needs NATS_USER');
  if ((settings.NATS_TLS_CERT_FILE === '') !== (settings.NATS_TLS_KEY_FILE === '')) problems.push('NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together');
  for (const key of ['NATS_NKEY_SEED_FILE', 'NATS_CREDS_FILE', 'NATS_TLS_CA_FILE', 'NATS_TLS_CERT_FILE', 'NATS_TLS_KEY_FILE'] as const) {
    const file = settings[key];
    if (file === '') continue;
    try {
      readFileSync(file);
    } catch (err) {
      problems.push(`${key}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  if (problems.length > 0) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `NATS settings: ${problems.join('; ')}. See docs/cluster.md.`);

  const options: ConnectionOptions = { servers };
  if (user !== '') {
    options.user = user;
    if (pass !== '') options.pass = pass;
    // `nats://token@host` names a token, as in the NATS tools.
    else if (settings.NATS_USER === '') {
      delete options.user;
      options.token = user;
    }
  }
  if (settings.NATS_TOKEN !== '') options.token = settings.NATS_TOKEN;
  if (settings.NATS_NKEY_SEED_FILE !== '') {
    const file = settings.NATS_NKEY_SEED_FILE;
    options.authenticator = nkeyAuthenticator(() => new TextEncoder().encode(readFileSync(file, 'utf8').trim()));
  }
  if (settings.NATS_CREDS_FILE !== '') {
    const file = settings.NATS_CREDS_FILE;
    options.authenticator = credsAuthenticator(() => readFileSync(file));
  }
  const tlsFiles = settings.NATS_TLS_CA_FILE !== '' || settings.NATS_TLS_CERT_FILE !== '';
  if (tlsRequired || tlsFiles) {
    options.tls = {
      ...(settings.NATS_TLS_CA_FILE ? { caFile: settings.NATS_TLS_CA_FILE } : {}),
      ...(settings.NATS_TLS_CERT_FILE ? { certFile: settings.NATS_TLS_CERT_FILE, keyFile: settings.NATS_TLS_KEY_FILE } : {}),
    };
  }
  return options;
}

/** NATS_URL as logs may show it: every URL without its user name and password. */
export function natsUrlForLog(natsUrl: string): string {
  return natsUrl
    .split(',')
    .map((raw) => raw.trim().replace(/^([a-z]+:\/\/)[^@/]*@/i, '$1'))
    .filter(Boolean)
    .join(',');
}
