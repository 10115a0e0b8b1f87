import { hasProviderSettings } from './drivers/built-in.js';
import type { Settings } from './settings/schema.js';

/** Demo mode: forced by DEMO_MODE, or (auto) when no provider is configured: no built-in credentials and no DRIVERS. */
export function isDemoMode(settings: Settings): boolean {
  if (settings.DEMO_MODE !== 'auto') return settings.DEMO_MODE === 'true';
  return !hasProviderSettings(settings);
}

/**
 * Whether the server may call agents' URLs on loopback, private, link-local and other internal
 * addresses: CALLBACK_ALLOW_PRIVATE_NETWORKS, or (auto) in demo mode and outside production.
 */
export function allowsPrivateNetworks(settings: Settings): boolean {
  if (settings.CALLBACK_ALLOW_PRIVATE_NETWORKS !== 'auto') return settings.CALLBACK_ALLOW_PRIVATE_NETWORKS === 'true';
  return settings.NODE_ENV !== 'production' || isDemoMode(settings);
}

/** Email domain demo mode uses when none is configured. */
export const DEMO_EMAIL_DOMAIN = 'demo.switchboard.local';

/** Pool contents demo mode starts with: fictional 555-01xx numbers and fixed LINE bot ids (the demo simulator hosts each as a bot). */
export function demoPools(): { phone: string[]; whatsapp: string[]; line: string[] } {
  const range = (prefix: string) => Array.from({ length: 100 }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`);
  return {
    phone: range('+120255501'),
    whatsapp: range('+141555501'),
    line: Array.from({ length: 20 }, (_, i) => `U${(0xdead0000 + i).toString(16).padStart(32, '0')}`),
  };
}
