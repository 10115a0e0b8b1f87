/** The small JSON body both bare handlers answer, close in size to what /health answers. */
export const BARE_BODY = JSON.stringify({ status: 'ok', uptime: 12.345, version: '0.0.0', environment: 'production', demoMode: true });

/** The line a bare server prints once it listens; the harness waits for it. */
export const READY_LINE = /^LISTENING (http:\/\/\S+)$/m;
