import type uWS from 'uWebSockets.js';
import { RelayCall, StreamCall, type Logger, type Runtime } from '@switchboard/runtime';
import { errorResult } from '../http/errors.js';
import type { GatewayMetrics } from '../metrics.js';

interface SocketData {
  agentId: string;
  call?: { handle(message: Record<string, unknown>): Promise<void>; closed(): void };
}

/**
 * `WSS /webhooks/:agentId/voice-ws`: the provider's media connection. The upgrade is refused unless
 * its Twilio signature holds (checked by the telephony driver over the public WebSocket URL); the
 * frames then drive the call's dialogue in the mode the call was connected with.
 */
export function attachVoiceSocket(uws: uWS.TemplatedApp, deps: { runtime: Runtime; metrics: GatewayMetrics; logger: Logger; publicBaseUrl: () => string }): void {
  const { runtime, metrics, logger } = deps;
  uws.ws<SocketData>('/webhooks/:agentId/voice-ws', {
    maxPayloadLength: 256 * 1024,
    idleTimeout: 120,
    maxBackpressure: 1024 * 1024,
    upgrade: (res, req, context) => {
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
      });
      const agentId = decodeURIComponent(req.getParameter(0) ?? '');
      const query = req.getQuery() ?? '';
      const headers: Record<string, string> = {};
      req.forEach((name, value) => {
        headers[name] = value;
      });
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const url = `${deps.publicBaseUrl().replace(/^http/, 'ws')}/webhooks/${encodeURIComponent(agentId)}/voice-ws${query ? `?${query}` : ''}`;
      runtime.voice
        .verify({ method: 'GET', url, headers, rawBodyBase64: '' })
        .then(
          () => {
            if (aborted) return;
            res.cork(() => res.upgrade<SocketData>({ agentId }, key, protocol, extensions, context));
          },
          (err: unknown) => {
            if (aborted) return;
            const { status, body } = errorResult(err);
            res.cork(() => res.writeStatus(`${status} Forbidden`).writeHeader('content-type', 'application/json; charset=utf-8').end(JSON.stringify(body), true));
          },
        );
    },
    open: () => {
      metrics.voiceCallsActive.inc();
    },
    message: (ws, message) => {
      const data = ws.getUserData();
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(Buffer.from(message).toString('utf8')) as Record<string, unknown>;
      } catch {
        return;
      }
      // The first frame tells the protocol: ConversationRelay sends `type: setup`, Media Streams `event: connected`.
      if (!data.call) {
        const send = (out: object) => {
          if (!closed.has(ws)) ws.send(JSON.stringify(out), false);
        };
        const hangUp = () => {
          if (!closed.has(ws)) ws.end(1000);
        };
        data.call =
          typeof parsed.event === 'string'
            ? new StreamCall(runtime.voice, runtime.store, data.agentId, hangUp, runtime.audio()).attach(send)
            : new RelayCall(runtime.voice, runtime.store, data.agentId, hangUp).attach(send);
      }
      data.call.handle(parsed).catch((err: unknown) => logger.warn({ err, agentId: data.agentId }, 'voice frame failed'));
    },
    close: (ws) => {
      closed.add(ws);
      metrics.voiceCallsActive.dec();
      ws.getUserData().call?.closed();
    },
  });
}

const closed = new WeakSet<object>();
