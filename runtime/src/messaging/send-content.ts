import { ErrorCodes, SwitchboardError, type Channel, type TemplateRef } from '@switchboard/sdk';
import type { SendTemplate } from '../protocol/catalogue/messaging.js';
import type { OperationRequest } from '../protocol/operations.js';

/** What a send carries: its text, or on WhatsApp an approved template (TemplateRef) and the text its record shows. */
export function contentOf(channel: Channel, request: OperationRequest<'send'>): { body: string; template: TemplateRef | undefined } {
  const { body, template } = request;
  if ((body === undefined) === (template === undefined)) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'Give the message as `body` or, on WhatsApp, as a `template`: one of them.');
  if (template === undefined) return { body: body!, template: undefined };
  if (channel !== 'whatsapp') throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Templates are for WhatsApp; a ${channel} message takes a \`body\`.`);
  return { body: templateBody(template), template: templateRef(template) };
}

function templateRef(template: SendTemplate): TemplateRef {
  if (!template.contentSid && !template.name) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'A template names its `contentSid` or its `name`.');
  return {
    ...(template.contentSid ? { id: template.contentSid } : {}),
    ...(template.name ? { name: template.name } : {}),
    ...(template.language ? { language: template.language } : {}),
    ...(template.variables ? { variables: template.variables } : {}),
  };
}

/** A template send's text in its record (the provider renders the template itself): which template, with its values. */
function templateBody(template: SendTemplate): string {
  const values = Object.entries(template.variables ?? {}).map(([k, v]) => `${k}=${v}`);
  return `[template ${template.name ?? template.contentSid}${template.language ? ` (${template.language})` : ''}${values.length > 0 ? `: ${values.join(', ')}` : ''}]`;
}
