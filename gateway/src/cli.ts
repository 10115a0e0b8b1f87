#!/usr/bin/env node
// Only the argument parsing is loaded up front: help, the version and a mistyped command answer at once,
// and the runtime (store, drivers, vendor SDKs) is imported only for a command that runs a server.
import { parseArgs } from 'node:util';
import { VERSION } from './version.js';

const USAGE = `Usage: switchboard [start | gateway | runtime | token reset | backup | restore | tail] [options]

Commands:
  start             embedded mode (the default): gateway and runtime in one process, SQLite
                    under the data dir, demo mode when no provider is configured
  gateway           a cluster gateway: HTTP API, MCP, webhooks (signatures checked here), voice
                    WebSocket, admin; no actors. Any number, behind one address (PUBLIC_BASE_URL)
  runtime           a cluster runtime node: the agents' actors, drivers and deliveries; no HTTP.
                    Any number; agents move to the others within CLUSTER_LEASE_TTL_MS of a loss
  token reset       a lost orchestrator token: mints a new one for the data dir and prints it
                    (embedded mode, with the server stopped; the old token stops working)
  backup            copies an embedded data dir into one file (--to <file>) while its server runs:
                    the store (SQLite's online backup), its key, recordings and voice messages
  restore           puts a backup (--from <file>) into a new or empty --data-dir; refused while
                    a server uses that dir (--force: replace what a stopped server's dir holds)
  tail              follows an agent's inbox live (--agent <id>), one line per entry, from the
                    server at --url (SWITCHBOARD_URL, default http://127.0.0.1:$PORT or :3000)
                    with the token in SWITCHBOARD_TOKEN (or --token); reads on after a restart

Cluster processes need NATS_URL, DATABASE_URL, SECRET_KEY, PUBLIC_BASE_URL and provider
settings, the same on every process (see docs/cluster.md).

Options:
  --port <n>        TCP port (PORT, default 3000; 0 picks a free one)
  --host <addr>     interface to listen on (HOST, default 127.0.0.1)
  --data-dir <dir>  where the store and keys live (DATA_DIR, default ./data)
  --settings <file> settings file of KEY=value lines (default ./.env, read when present;
                    a file named here must exist). .env.example lists every key.
  --to <file>       backup: the file to write (a gzipped tar; it must not exist yet)
  --from <file>     restore: the backup file to read
  --force           restore: replace the store, key and audio of a data dir that holds some
  --agent <id>      tail: the agent whose inbox to follow
  --url <url>       tail: the server's address (SWITCHBOARD_URL)
  --token <token>   tail: a client, team or orchestrator token (prefer SWITCHBOARD_TOKEN: a
                    flag shows in the process list)
  --after <cursor>  tail: start after this cursor (0: every entry; default: new ones only)
  --json            tail: print each entry as a JSON line
  --env-file <file> the same as --settings. Node.js itself also reads any --env-file argument
                    and exits when the file is missing, so prefer --settings.
  -h, --help        show this help
  -v, --version     print the version`;

const COMMANDS = ['start', 'gateway', 'runtime', 'token', 'backup', 'restore', 'tail'] as const;
type Command = (typeof COMMANDS)[number];

const HINT = 'Run `switchboard --help` for the commands and options.';

/** A mistake on the command line: printed with the hint, exit code 2. */
class UsageError extends Error {}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        settings: { type: 'string' },
        'env-file': { type: 'string' },
        to: { type: 'string' },
        from: { type: 'string' },
        force: { type: 'boolean' },
        agent: { type: 'string' },
        url: { type: 'string' },
        token: { type: 'string' },
        after: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (err) {
    throw new UsageError(usageMistake(err));
  }
}

/** parseArgs' errors in the CLI's words (its own advise positionals and `--`, which this CLI has no use for). */
function usageMistake(err: unknown): string {
  const { code, message } = err as { code?: string; message?: string };
  // Node quotes the option as '--foo', '--port <value>' or '-h, --help': the last flag in it is the one.
  const option = /'(-[^']*)'/.exec(message ?? '')?.[1]?.match(/--?[A-Za-z][\w-]*/g)?.at(-1) ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${option}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /argument missing/.test(message ?? '') ? `option ${option} needs a value` : `option ${option} takes no value`;
  }
  return message ?? String(err);
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv);
  if (values.version) {
    console.log(VERSION);
    return 0;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const command = positionals[0] ?? 'start';
  if (!COMMANDS.includes(command as Command)) throw new UsageError(`unknown command '${command}' (the commands are ${COMMANDS.join(', ')})`);
  const settingsFile = values.settings ?? values['env-file'];
  if (command === 'token') {
    if (positionals[1] !== 'reset') throw new UsageError(positionals[1] ? `unknown token command '${positionals[1]}' (the one is reset)` : "'token' needs a command: token reset");
    if (positionals.length > 2) throw new UsageError(`unexpected argument '${positionals[2]}' after 'token reset'`);
    const { resetToken } = await import('./token-reset.js');
    return resetToken({ dataDir: values['data-dir'], settingsFile });
  }
  if (positionals.length > 1) throw new UsageError(`unexpected argument '${positionals[1]}' after '${command}'`);
  if (command === 'backup') {
    if (!values.to) throw new UsageError("'backup' needs --to <file>: the backup file to write");
    return (await import('./backup.js')).backup({ dataDir: values['data-dir'], settingsFile, to: values.to });
  }
  if (command === 'restore') {
    if (!values.from || !values['data-dir']) throw new UsageError("'restore' needs --from <file> and --data-dir <dir>: the backup, and the data dir to restore into");
    return (await import('./backup.js')).restore({ dataDir: values['data-dir'], settingsFile, from: values.from, force: values.force ?? false });
  }
  if (command === 'tail') {
    if (!values.agent) throw new UsageError("'tail' needs --agent <agentId>: the agent whose inbox to follow");
    return (await import('./tail.js')).runTail({ agent: values.agent, url: values.url, token: values.token, after: values.after, json: values.json ?? false });
  }
  const { runCommand } = await import('./serve.js');
  return runCommand({
    command: command as Exclude<Command, 'token' | 'backup' | 'restore' | 'tail'>,
    port: values.port,
    host: values.host,
    dataDir: values['data-dir'],
    settingsFile,
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`switchboard: ${err.message}\n${HINT}\n`);
      process.exit(2);
    }
    const message = err instanceof Error ? err.message : String(err);
    // The code names the failure for scripts and searches (DRIVER_CONFLICT, VALIDATION_FAILED...).
    const code = typeof (err as { code?: unknown })?.code === 'string' ? `${(err as { code: string }).code}: ` : '';
    process.stderr.write(`switchboard: ${code}${message}\n`);
    process.exit(1);
  },
);
