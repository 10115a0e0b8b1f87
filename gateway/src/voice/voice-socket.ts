import type { GatewayPorts, LiveCall, Logger } from '@switchboard/runtime';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import type { SocketRoutes } from '../http/socket-routes.js';
import type { GatewayMetrics } from '../metrics.js';

interface SocketData {
  agentId: string;
  call?: LiveCall;
}

/**
 * `WSS /webhooks/:agentId/voice-ws`: the provider's media connection. The upgrade is refused unless
 * the telephony driver's check over the public WebSocket URL holds (Twilio's signature; the token in
 * a Telnyx stream URL); the frames then drive the call's dialogue in the mode the call was connected with.
 */
export function attachVoiceSocket(routes: SocketRoutes, deps: { voice: GatewayPorts['voice']; metrics: GatewayMetrics; logger: Logger; publicBaseUrl: () => string }): void {
  const { voice, metrics, logger } = deps;
  const failed = (err: unknown, agentId: string) => logger.warn({ err, agentId }, 'voice frame failed');
  routes.webSocket<SocketData>('/webhooks/:agentId/voice-ws', {
    maxPayloadLength: 256 * 1024,
    idleTimeoutSeconds: 120,
    maxBackpressure: 1024 * 1024,
    upgrade: async ({ params, queryString, headers }) => {
      let agentId: string;
      try {
        agentId = decodeURIComponent(params.agentId ?? '');
      } catch {
        throw new SwitchboardError(ErrorCodes.BAD_REQUEST, 'The agent id in the path is not valid percent-encoding.');
      }
      const url = `${deps.publicBaseUrl().replace(/^http/, 'ws')}/webhooks/${encodeURIComponent(agentId)}/voice-ws${queryString ? `?${queryString}` : ''}`;
      await voice.verify({ method: 'GET', url, headers, rawBodyBase64: '' });
      return { agentId };
    },
    open: () => {
      metrics.voiceCallsActive.inc();
    },
    message: (socket, message) => {
      const data = socket.data;
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(message.toString('utf8')) as Record<string, unknown>;
      } catch {
        return;
      }
      // The first frame tells the protocol: ConversationRelay sends `type: setup`, Media Streams `event: connected`.
      if (!data.call) {
        const hangUp = () => socket.end(1000);
        data.call = voice.openCall(typeof parsed.event === 'string' ? 'stream' : 'relay', data.agentId, hangUp, (text) => socket.send(text));
      }
      try {
        data.call.handle(parsed)?.catch((err: unknown) => failed(err, data.agentId));
      } catch (err) {
        failed(err, data.agentId);
      }
    },
    close: (socket) => {
      metrics.voiceCallsActive.dec();
      socket.data.call?.closed();
    },
  });
}
