import { Type } from '@sinclair/typebox';
/** No parameters: the templates are the provider account's, the same for every agent. */
export const WhatsAppTemplatesQuery = Type.Object({}, { additionalProperties: false });

const Template = Type.Object({
  contentSid: Type.String({ description: "The provider's id to send it by (Twilio's Content SID, HX…)." }),
  name: Type.String(),
  language: Type.String(),
  category: Type.Union([Type.String(), Type.Null()], { description: 'UTILITY, MARKETING or AUTHENTICATION, as the provider says.' }),
  body: Type.Union([Type.String(), Type.Null()], { description: 'The text with its placeholders ({{1}}, {{2}}, …).' }),
  variables: Type.Record(Type.String(), Type.String(), { description: "Each placeholder's sample value, by name." }),
});

export const WhatsAppTemplatesResponse = Type.Object({
  provider: Type.String({ description: 'The WhatsApp provider asked, e.g. twilio.' }),
  templates: Type.Array(Template, { description: 'The approved templates: send one with `template` on send-message.' }),
  count: Type.Integer({ minimum: 0 }),
});
