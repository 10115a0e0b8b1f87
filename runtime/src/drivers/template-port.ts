import { ErrorCodes, SwitchboardError, type MessageTemplate } from '@switchboard/sdk';
import type { TemplatePort } from '../ports.js';
import type { DriverSet } from './registry.js';

/** The approved WhatsApp templates, asked of the channel's loaded driver (its provider's API). */
export class DriverTemplatePort implements TemplatePort {
  constructor(private readonly drivers: DriverSet) {}

  async approved(channel: 'whatsapp'): Promise<{ provider: string; templates: MessageTemplate[] }> {
    const driver = this.drivers.require(channel);
    const provider = driver.manifest.provider;
    if (!driver.templates) throw new SwitchboardError(ErrorCodes.NOT_FOUND, `The ${channel} provider (${provider}) keeps no message templates.`);
    const templates = await driver.templates.list(channel);
    return { provider, templates: templates.filter((t) => t.status === 'approved') };
  }
}
