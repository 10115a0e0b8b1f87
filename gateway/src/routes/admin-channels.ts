import { CHANNELS, CHANNEL_SPECS } from '@switchboard/sdk';
import { json, type RouteDefinition } from '../http/types.js';
import { ChannelList } from '../schemas/admin.js';
import { errorResponses } from '../schemas/common.js';

/** The channel table as JSON: patterns as their source text. The same for every request, so built once. */
const TABLE = {
  channels: CHANNELS.map((channel) => {
    const { address, ...spec } = CHANNEL_SPECS[channel];
    return { channel, ...spec, address: { ...address, pattern: address.pattern.source } };
  }),
};

/** Admin API: the channel table the admin UI names channels, pools and settings from. */
export function adminChannelRoutes(): RouteDefinition[] {
  return [
    {
      tag: 'Admin',
      auth: 'orchestrator',
      method: 'GET',
      path: '/admin/api/channels',
      operationId: 'adminChannels',
      summary: "Each channel's table entry: its label, whether agents send on it, its address, pool and settings, and its webhook path and default media types.",
      description: 'The SDK\u2019s CHANNEL_SPECS, which the runtime and the gateway read too; a new channel is an entry there plus a driver.',
      responses: { 200: { description: 'The channels.', schema: ChannelList }, ...errorResponses(401, 403, 429) },
      handler() {
        return json(200, TABLE);
      },
    },
  ];
}
