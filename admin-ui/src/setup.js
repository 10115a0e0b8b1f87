import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { loadChannels } from './channels.js';

/** Wizard steps: each names its settings; `secret` fields are never shown back, blank keeps them. The pools step's come from the channel table. */
const STEPS = [
  {
    id: 'telephony',
    title: 'Telephony (Twilio)',
    intro: 'SMS, WhatsApp and voice calls. Find both values on the Twilio console home page.',
    fields: [
      { key: 'TWILIO_ACCOUNT_SID', label: 'Account SID', placeholder: 'AC…' },
      { key: 'TWILIO_AUTH_TOKEN', label: 'Auth token', secret: true },
    ],
    test: { path: '/admin/api/test/twilio', body: (v) => ({ accountSid: v.TWILIO_ACCOUNT_SID ?? '', authToken: v.TWILIO_AUTH_TOKEN ?? '' }) },
  },
  {
    id: 'email',
    title: 'Email (Resend)',
    intro: 'Agent email addresses. Create an API key and a webhook (email.received) in the Resend dashboard.',
    fields: [
      { key: 'RESEND_API_KEY', label: 'API key', secret: true, placeholder: 're_…' },
      { key: 'RESEND_WEBHOOK_SECRET', label: 'Webhook signing secret', secret: true, placeholder: 'whsec_…' },
    ],
    test: { path: '/admin/api/test/resend', body: (v) => ({ apiKey: v.RESEND_API_KEY ?? '' }) },
  },
  {
    id: 'line',
    title: 'LINE',
    intro: 'LINE Messaging API channel (LINE Developers console → your channel → Messaging API). Checked when the server restarts.',
    fields: [
      { key: 'LINE_CHANNEL_ACCESS_TOKEN', label: 'Channel access token', secret: true },
      { key: 'LINE_CHANNEL_SECRET', label: 'Channel secret', secret: true },
    ],
  },
  {
    id: 'speech',
    title: 'Speech (TTS and STT)',
    intro: 'ElevenLabs speaks voice messages and stream-mode calls; Deepgram transcribes stream-mode calls.',
    fields: [
      { key: 'ELEVENLABS_API_KEY', label: 'ElevenLabs API key (text-to-speech)', secret: true },
      { key: 'DEEPGRAM_API_KEY', label: 'Deepgram API key (speech-to-text)', secret: true },
    ],
    test: { path: '/admin/api/test/elevenlabs', body: (v) => ({ apiKey: v.ELEVENLABS_API_KEY ?? '' }), label: 'Test ElevenLabs' },
  },
  {
    id: 'pools',
    title: 'Pools',
    intro: 'Addresses agents are given when they are provisioned. Comma-separated.',
    fields: [{ key: 'EMAIL_DOMAIN', label: 'Email domain', placeholder: 'agents.example.com' }],
  },
  {
    id: 'public',
    title: 'Public URL and webhooks',
    intro: 'The address providers and phones reach this server at. Paste the webhook URLs below into each provider console.',
    fields: [{ key: 'PUBLIC_BASE_URL', label: 'Public base URL', placeholder: 'https://switchboard.example.com' }],
    webhooks: true,
  },
  { id: 'deploy', title: 'Save and deploy', intro: 'Saves the settings to the env file (mode 0600) and restarts the server with them.' },
];

/** The wizard's steps with a field for each pool a setting fills (`POOL_PHONE_NUMBERS`), as the channel table names them. */
function withPools(channels) {
  const pools = new Map();
  for (const { pool, address } of channels) {
    if (pool.setting && !pools.has(pool.setting)) {
      pools.set(pool.setting, { key: pool.setting, label: pool.label ?? pool.setting, ...(address.kind === 'e164' ? { placeholder: '+14155550100,+14155550101' } : {}) });
    }
  }
  return STEPS.map((s) => (s.id === 'pools' ? { ...s, fields: [...pools.values(), ...s.fields] } : s));
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Polls the status until the deploy that started at `startedAt` has an outcome; the 503s of the swap are retried. */
export async function deployOutcome(startedAt) {
  const until = Date.now() + 90_000;
  for (;;) {
    await new Promise((r) => setTimeout(r, 300));
    const status = await api('GET', '/admin/api/status').catch(() => undefined);
    const last = status?.lastDeploy;
    if (last && last.startedAt === startedAt && last.outcome !== 'deploying') return status;
    if (Date.now() > until) throw new Error('The server gave no outcome within 90 s; check its log.');
  }
}

/** Demo mode: the simulator's credentials, which the credential tests accept. */
function DemoCredentials({ step, demo }) {
  const rows =
    step.id === 'telephony'
      ? [['Account SID', demo.twilio.accountSid], ['Auth token', demo.twilio.authToken]]
      : step.id === 'email'
        ? [['API key', demo.resend.apiKey]]
        : step.id === 'speech'
          ? [['ElevenLabs API key', demo.elevenlabs.apiKey]]
          : [];
  if (rows.length === 0) return null;
  return html`<div class="demo-credentials">
    <p>The simulator at <code>${demo.url}</code> accepts these demo credentials:</p>
    <dl>${rows.map(([name, value]) => html`<dt>${name}</dt><dd><code>${value}</code></dd>`)}</dl>
  </div>`;
}

function LastDeploy({ last }) {
  if (!last) return null;
  const when = new Date(last.finishedAt ?? last.startedAt).toLocaleString();
  if (last.outcome === 'deploying') return html`<p class="last-deploy" role="status">A deploy is under way (started ${when}).</p>`;
  if (last.outcome === 'deployed') return html`<p class="last-deploy ok" role="status">Last deploy succeeded (${when}).</p>`;
  return html`<p class="last-deploy error" role="status">
    Last deploy failed (${when}): ${last.error?.message}
    ${' '}The previous settings are serving${last.envFileRestored ? ', and the env file was put back as it was' : ''}.
  </p>`;
}

function Field({ field, value, isSet, onInput }) {
  const id = `f-${field.key}`;
  const hint = field.secret && isSet ? 'Set — leave blank to keep it.' : '';
  return html`<div class="field">
    <label for=${id}>${field.label}</label>
    <input
      id=${id}
      name=${field.key}
      type=${field.secret ? 'password' : 'text'}
      autocomplete="off"
      spellcheck="false"
      placeholder=${hint || field.placeholder || ''}
      aria-describedby=${hint ? `${id}-hint` : undefined}
      value=${value ?? ''}
      onInput=${(e) => onInput(field.key, e.target.value)}
    />
    ${hint && html`<small id=${`${id}-hint`}>${hint}</small>`}
  </div>`;
}

export function Setup() {
  const [status, setStatus] = useState(undefined);
  const [error, setError] = useState('');
  const [index, setIndex] = useState(0);
  const [values, setValues] = useState({});
  const [tests, setTests] = useState({});
  const [progress, setProgress] = useState([]);
  const [stayDemo, setStayDemo] = useState(true);
  const [demo, setDemo] = useState(undefined);
  const [steps, setSteps] = useState(STEPS);

  const load = () =>
    Promise.all([api('GET', '/admin/api/status'), loadChannels()])
      .then(([s, channels]) => {
        const all = withPools(channels);
        setSteps(all);
        setStatus(s);
        if (s.demoMode) api('GET', '/admin/api/demo-credentials').then(setDemo, () => setDemo(undefined));
        else setDemo(undefined);
        const initial = {};
        for (const step of all) for (const f of step.fields ?? []) if (!f.secret) initial[f.key] = String(s.settings[f.key] ?? '');
        setValues((v) => ({ ...initial, ...v }));
      })
      .catch((e) => setError(e.message));
  useEffect(() => {
    load();
  }, []);
  if (error) return html`<p role="alert" class="error">Could not load the status: ${error}</p>`;
  if (!status) return html`<p class="loading">Loading status…</p>`;

  const step = steps[index];
  const set = (key, value) => setValues((v) => ({ ...v, [key]: value }));
  const runTest = async () => {
    setTests((t) => ({ ...t, [step.id]: { running: true } }));
    try {
      const result = await api('POST', step.test.path, step.test.body(values));
      setTests((t) => ({ ...t, [step.id]: result }));
    } catch (e) {
      setTests((t) => ({ ...t, [step.id]: { ok: false, message: e.message } }));
    }
  };
  const changes = () => {
    const out = {};
    for (const s of steps)
      for (const f of s.fields ?? []) {
        const v = (values[f.key] ?? '').trim();
        if (f.secret) {
          if (v) out[f.key] = v;
        } else if (v !== String(status.settings[f.key] ?? '')) out[f.key] = v;
      }
    // Staying in demo mode needs DEMO_MODE=true only when credentials are saved (auto would leave it) and it is not set already.
    const forced = status.settings.DEMO_MODE === 'true';
    if (status.demoMode && stayDemo && !forced && Object.keys(out).length > 0) out.DEMO_MODE = 'true';
    if (status.demoMode && !stayDemo && forced) out.DEMO_MODE = '';
    return out;
  };
  const saveAndDeploy = async () => {
    const log = [];
    const note = (text, kind = 'info') => {
      log.push({ text, kind });
      setProgress([...log]);
    };
    const settings = changes();
    try {
      if (Object.keys(settings).length > 0) {
        note(`Saving ${plural(Object.keys(settings).length, 'setting')}…`);
        const saved = await api('POST', '/admin/api/save', { settings });
        note(`Saved ${saved.saved.join(', ')} to ${saved.envFile}.`, 'ok');
      } else note('Nothing changed; deploying the saved settings.');
      note('Deploying: the server restarts with the saved settings…');
      const { deploy } = await api('POST', '/admin/api/deploy');
      const after = await deployOutcome(deploy.startedAt);
      await load();
      const last = after.lastDeploy;
      if (last.outcome === 'deployed') {
        note('Deployed: the server is running with the new settings.', 'ok');
        if (after.simulator) note(`The demo simulator listens at ${after.simulator.url}.`, 'info');
      } else {
        note(`Deploy failed: ${last.error?.message ?? 'see the server log'}`, 'error');
        note(`The previous settings are serving again${last.envFileRestored ? ', and the env file was put back as it was' : ''}. Fix the setting named above and save and deploy again.`, 'error');
      }
    } catch (e) {
      note(`Failed: ${e.message}`, 'error');
      // A refused deploy is recorded too: show it as the last deploy.
      if (e.status === 400) load();
      note(
        e.status === 400
          ? 'Fix the setting named above (see docs/configuration.md) and try again; nothing was restarted, and the env file holds the settings that are serving.'
          : e.status === 409
            ? 'This server was not started with switchboard start from an env file, or a deploy is already running; wait and retry.'
            : 'Check the server log, then retry.',
        'error',
      );
    }
  };

  const test = tests[step.id];
  return html`<section aria-labelledby="setup-title">
    <h1 id="setup-title">Setup</h1>
    ${status.demoMode &&
    html`<p class="banner" role="status">
      <strong>Demo mode:</strong> no provider credentials are set, so the built-in provider simulator answers every call.
      Everything works end to end against it; credential tests run against the simulator too${demo ? html`, which listens at <code>${demo.url}</code>` : ''}.
    </p>`}
    <ol class="steps" aria-label="Steps">
      ${steps.map(
        (s, i) => html`<li><button type="button" class=${i === index ? 'current' : ''} aria-current=${i === index ? 'step' : undefined} onClick=${() => setIndex(i)}>
          ${i + 1}. ${s.title}
        </button></li>`,
      )}
    </ol>
    <div class="card">
      <h2>${step.title}</h2>
      <p>${step.intro}</p>
      ${status.demoMode && demo && html`<${DemoCredentials} step=${step} demo=${demo} />`}
      ${(step.fields ?? []).map((f) => html`<${Field} field=${f} value=${values[f.key]} isSet=${status.settings[f.key] === true} onInput=${set} />`)}
      ${step.test &&
      html`<div class="test">
        <button type="button" onClick=${runTest} disabled=${test?.running}>${test?.running ? 'Testing…' : step.test.label ?? 'Test credentials'}</button>
        ${test && !test.running && html`<p role="status" class=${test.ok ? 'ok' : 'error'}>${test.ok ? '✓ ' : '✗ '}${test.message}</p>`}
      </div>`}
      ${step.webhooks &&
      html`<table class="webhooks">
        <caption>Webhook URLs to paste ({agentId} is each agent's id)</caption>
        <tbody>
          ${Object.entries(status.webhooks).map(([name, url]) => html`<tr><th scope="row">${name}</th><td><code>${url}</code></td></tr>`)}
        </tbody>
      </table>`}
      ${step.id === 'deploy' &&
      html`<div>
        <${LastDeploy} last=${status.lastDeploy} />
        ${Object.keys(changes()).length > 0
          ? html`<p>Changes to save: <strong>${Object.keys(changes()).join(', ')}</strong></p>`
          : html`<p>No changes to save; Save and deploy restarts the server with the saved settings.</p>`}
        ${status.demoMode && html`<label class="check"><input type="checkbox" checked=${stayDemo} onChange=${(e) => setStayDemo(e.target.checked)} /> Stay in demo mode (DEMO_MODE=true)</label>`}
        <button type="button" class="primary" onClick=${saveAndDeploy}>Save and deploy</button>
        <ol class="progress" aria-live="polite">
          ${progress.map((p) => html`<li class=${p.kind}>${p.text}</li>`)}
        </ol>
      </div>`}
      <div class="nav">
        <button type="button" disabled=${index === 0} onClick=${() => setIndex(index - 1)}>Back</button>
        <button type="button" disabled=${index === steps.length - 1} onClick=${() => setIndex(index + 1)}>Next</button>
      </div>
    </div>
  </section>`;
}
