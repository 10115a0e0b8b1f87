import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

// The channel table (the SDK's CHANNEL_SPECS) changes only with the server's version: fetched once per page load.
let table;

/** The channel table from GET /admin/api/channels, fetched once; a failed fetch is tried again next time. */
export function loadChannels() {
  table ??= api('GET', '/admin/api/channels').then(
    (answer) => answer.channels,
    (err) => {
      table = undefined;
      throw err;
    },
  );
  return table;
}

/** The channel table as a hook: an empty list until it has loaded. */
export function useChannels() {
  const [channels, setChannels] = useState([]);
  useEffect(() => {
    let live = true;
    loadChannels().then(
      (c) => live && setChannels(c),
      () => {},
    );
    return () => {
      live = false;
    };
  }, []);
  return channels;
}

/** A channel's entry in the table, undefined before it has loaded. */
export const specOf = (channels, channel) => channels.find((c) => c.channel === channel);

/** A channel's label (`SMS`, `WhatsApp`), or its name before the table has loaded. */
export const labelOf = (channels, channel) => specOf(channels, channel)?.label ?? channel;

/** "a", "a and b", "a, b and c". */
export const listOf = (words) => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);
