import { CHANNEL_SPECS, ErrorCodes, SwitchboardError, type Channel, type ChannelSpec, type Driver } from '@switchboard/sdk';
import { driverSettingsName, parseRoutes } from '@switchboard/runtime';

/** A destination prefix and its providers in order (one part of SMS_ROUTES). */
export interface PrefixRoute {
  readonly prefix: string;
  readonly providers: readonly string[];
}

/** A channel's routing as the operator sets it: its providers in order, and (SMS only) its prefix routes. */
export interface ChannelRouting {
  readonly channel: Channel;
  readonly providers: readonly string[];
  readonly routes?: readonly PrefixRoute[];
}

const E164_PREFIX = /^\+[0-9]{1,6}$/;

/** The setting holding a channel's provider order (`SMS_DRIVER`), from its table entry. */
const orderSetting = (channel: Channel) => CHANNEL_SPECS[channel].driverSetting;
/** The setting holding a channel's prefix routes (`SMS_ROUTES`); undefined for a channel without any (only SMS has them). */
const routesSetting = (channel: Channel): string | undefined => (CHANNEL_SPECS[channel] as ChannelSpec).routesSetting;

/** The loaded drivers that offer a channel. */
function offering(drivers: readonly Driver[], channel: Channel): Driver[] {
  return drivers.filter((d) => d.manifest.channels.includes(channel));
}

/** The providers of the loaded drivers that offer a channel, in load order. */
export function offeredBy(drivers: readonly Driver[], channel: Channel): string[] {
  return offering(drivers, channel).map((d) => d.manifest.provider);
}

/**
 * How a driver is written in `<CHANNEL>_DRIVER`: its provider name where that names it (`twilio`,
 * `whatsapp-cloud`), else its package name, which always does.
 */
function choiceName(driver: Driver): string {
  const short = driver.manifest.provider.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  return short === driverSettingsName(driver.manifest.name) ? driver.manifest.provider : driver.manifest.name;
}

/** A `<CHANNEL>_DRIVER` value as providers: each name mapped to the loaded driver it names, unknown names kept. */
function providersOf(value: string, candidates: readonly Driver[]): string[] {
  return value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => {
      const upper = n.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
      return candidates.find((d) => n === d.manifest.name || upper === driverSettingsName(d.manifest.name))?.manifest.provider ?? n;
    });
}

function refused(field: string, message: string): never {
  throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `${message}.`, { details: [{ field, message }] });
}

/**
 * Checks the operator's routing against the drivers loaded in this process and returns the settings that
 * hold it (`SMS_DRIVER`, `SMS_ROUTES`...): each provider loaded and offering the channel, named once;
 * prefixes E.164 (`+` and digits), each once, each route naming only providers of the channel's new order.
 * A channel given without `routes` keeps its routes, which must still fit the new order. Throws
 * VALIDATION_FAILED naming the field.
 */
export function routingSettings(
  channels: readonly ChannelRouting[],
  drivers: readonly Driver[],
  current: Readonly<Record<string, unknown>>,
): Record<string, string> {
  const updates: Record<string, string> = {};
  const seen = new Set<Channel>();
  channels.forEach((entry, i) => {
    const at = `channels[${i}]`;
    const { channel } = entry;
    if (seen.has(channel)) refused(`${at}.channel`, `${channel} is given twice`);
    seen.add(channel);
    const candidates = offering(drivers, channel);
    const known = candidates.map((d) => d.manifest.provider);
    if (entry.providers.length === 0) refused(`${at}.providers`, `${channel} needs at least one provider`);
    const order: Driver[] = [];
    entry.providers.forEach((name, j) => {
      const driver = candidates.find((d) => d.manifest.provider === name);
      if (!driver) refused(`${at}.providers[${j}]`, `${name} is not a loaded ${channel} provider (loaded: ${known.join(', ') || 'none'})`);
      if (order.includes(driver)) refused(`${at}.providers[${j}]`, `${name} is named twice in the ${channel} order`);
      order.push(driver);
    });
    updates[orderSetting(channel)] = order.map(choiceName).join(',');

    const inOrder = order.map((d) => d.manifest.provider);
    const routed = routesSetting(channel);
    if (entry.routes === undefined) {
      if (routed === undefined) return;
      // Kept as they are; a provider dropped from the order would stop the next start, so it is refused now.
      for (const r of parseRoutes(String(current[routed] ?? ''))) {
        const out = r.providers.find((p) => !inOrder.includes(p));
        if (out !== undefined) refused(`${at}.providers`, `${routed} sends ${r.prefix} to ${out}, which this order leaves out; change that route too`);
      }
      return;
    }
    if (routed === undefined) {
      if (entry.routes.length > 0) refused(`${at}.routes`, `only SMS has routes by destination prefix (SMS_ROUTES); ${channel} follows its order`);
      return;
    }
    const prefixes = new Set<string>();
    entry.routes.forEach((route, k) => {
      const where = `${at}.routes[${k}]`;
      if (!E164_PREFIX.test(route.prefix)) refused(`${where}.prefix`, `${JSON.stringify(route.prefix)} is not an E.164 prefix: + and 1 to 6 digits, such as +44 or +1415`);
      if (prefixes.has(route.prefix)) refused(`${where}.prefix`, `${route.prefix} is given twice`);
      prefixes.add(route.prefix);
      if (route.providers.length === 0) refused(`${where}.providers`, `${route.prefix} needs at least one provider`);
      const named = new Set<string>();
      route.providers.forEach((p, m) => {
        if (!inOrder.includes(p)) refused(`${where}.providers[${m}]`, `${p} is not among the ${channel} providers of the order (${inOrder.join(', ')})`);
        if (named.has(p)) refused(`${where}.providers[${m}]`, `${p} is named twice for ${route.prefix}`);
        named.add(p);
      });
    });
    // An empty string clears the setting, as the settings save does.
    updates[routed] = entry.routes.map((r) => `${r.prefix}=${r.providers.join(',')}`).join(';');
  });
  return updates;
}

/**
 * What the env file holds for a channel's routing when it differs from what serves: saved, waiting for a
 * deploy. Undefined when they agree. A setting the environment gives counts as serving (the file cannot change it).
 */
export function savedRouting(
  channel: Channel,
  file: Readonly<Record<string, string>>,
  serving: Readonly<Record<string, unknown>>,
  drivers: readonly Driver[],
  givenElsewhere: (key: string) => boolean = () => false,
): { providers: string[]; routes: PrefixRoute[] } | undefined {
  const order = orderSetting(channel);
  const routes = routesSetting(channel);
  // What the environment gives is what the next start reads, whatever the file says.
  const next = (key: string) => (givenElsewhere(key) ? String(serving[key] ?? '') : (file[key] ?? ''));
  const fileOrder = next(order);
  const fileRoutes = routes === undefined ? '' : next(routes);
  const servingRoutes = routes === undefined ? '' : String(serving[routes] ?? '');
  if (fileOrder === String(serving[order] ?? '') && fileRoutes === servingRoutes) return undefined;
  const candidates = offering(drivers, channel);
  return {
    providers: fileOrder ? providersOf(fileOrder, candidates) : candidates.map((d) => d.manifest.provider),
    routes: parseRoutes(fileRoutes),
  };
}
