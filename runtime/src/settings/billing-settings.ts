import { Type } from '@sinclair/typebox';

/** Settings of money and limits: tariffs, markup and the default per-agent limits. */
export const BILLING_SETTINGS = {
  TARIFFS: Type.String({
    default:
      'sms=0.0083,whatsapp=0.005,email=0.0004,line=0,call_minute=0.014,voice_message=0.014,transfer=0.01,tts_1k_characters=0.18,' +
      'sms:CA=0.0083,sms:GB=0.0463,sms:DE=0.0887,sms:FR=0.0798,sms:JP=0.0769,sms:AU=0.0515,sms:IN=0.0832',
    pattern: '^$|^[a-z0-9_]+(:[A-Z]{2})?=\\d+(\\.\\d+)?(,[a-z0-9_]+(:[A-Z]{2})?=\\d+(\\.\\d+)?)*$',
    description:
      'USD per unit, `<action>[:<COUNTRY>]=<usd>` comma-separated; used when the provider reports no price. Defaults are approximate US list prices; set your own.',
  }),
  MARKUP_PERCENT: Type.Number({ default: 0, minimum: 0, maximum: 1000, description: 'Markup on provider cost for billing, global default (the admin API overrides it, and per agent).' }),
  LIMIT_ACTIONS_PER_MINUTE: Type.Integer({ default: 120, minimum: 0, maximum: 1_000_000, description: 'Default billable actions per agent per UTC minute; 0 = no limit.' }),
  LIMIT_ACTIONS_PER_HOUR: Type.Integer({ default: 2000, minimum: 0, maximum: 10_000_000, description: 'Default actions per agent per UTC hour; 0 = no limit.' }),
  LIMIT_ACTIONS_PER_DAY: Type.Integer({ default: 10_000, minimum: 0, maximum: 100_000_000, description: 'Default actions per agent per UTC day; 0 = no limit.' }),
  LIMIT_SPEND_PER_DAY_USD: Type.Number({ default: 50, minimum: 0, maximum: 1_000_000, description: 'Default spend per agent per UTC day in USD; 0 = no limit.' }),
  LIMIT_SPEND_PER_MONTH_USD: Type.Number({ default: 500, minimum: 0, maximum: 10_000_000, description: 'Default spend per agent per UTC month in USD; 0 = no limit.' }),
  LIMIT_CALLS_PER_DAY_TO_SAME_NUMBER: Type.Integer({ default: 5, minimum: 0, maximum: 10_000, description: 'Default calls per agent per UTC day to one number; 0 = no limit.' }),
};
