/** ElevenLabs premade voices the simulator lists (real ids, so default voice settings work). */
export const PREMADE_VOICES = [
  { voice_id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', gender: 'female', accent: 'american', age: 'young', description: 'calm', use_case: 'narration' },
  { voice_id: 'EXAVITQu4vr4xnSDxMaL', name: 'Sarah', gender: 'female', accent: 'american', age: 'young', description: 'professional', use_case: 'entertainment_tv' },
  { voice_id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam', gender: 'male', accent: 'american', age: 'middle_aged', description: 'dominant', use_case: 'social_media' },
  { voice_id: 'ErXwobaYiN019PkySvjV', name: 'Antoni', gender: 'male', accent: 'american', age: 'young', description: 'well-rounded', use_case: 'narration' },
  { voice_id: 'JBFqnCBsd6RMkjVDRZzb', name: 'George', gender: 'male', accent: 'british', age: 'middle_aged', description: 'warm', use_case: 'narration' },
  { voice_id: 'XrExE9yKIg1WjnnlVkGX', name: 'Matilda', gender: 'female', accent: 'american', age: 'middle_aged', description: 'friendly', use_case: 'narration' },
] as const;

/** Voice ids are 20 letters and digits; any such id speaks, so configured custom voices work too. */
export function isVoiceId(id: string): boolean {
  return /^[A-Za-z0-9]{20}$/.test(id);
}

export function voiceJson(v: (typeof PREMADE_VOICES)[number]): Record<string, unknown> {
  return {
    voice_id: v.voice_id,
    name: v.name,
    category: 'premade',
    labels: { accent: v.accent, description: v.description, age: v.age, gender: v.gender, use_case: v.use_case },
    description: null,
    available_for_tiers: [],
    high_quality_base_model_ids: ['eleven_multilingual_v2', 'eleven_turbo_v2_5', 'eleven_flash_v2_5'],
    is_owner: false,
    is_legacy: false,
  };
}

const CREATED_AT = Math.floor(Date.now() / 1000);

/** GET /v1/user: the account, with the characters spoken so far. */
export function userJson(characterCount: number, apiKey: string): Record<string, unknown> {
  return {
    user_id: 'simulator-user',
    workspace_id: 'simulator-workspace',
    subscription: {
      tier: 'creator',
      character_count: characterCount,
      character_limit: 100000,
      max_character_limit_extension: 0,
      max_credit_limit_extension: 0,
      can_extend_character_limit: true,
      allowed_to_extend_character_limit: true,
      next_character_count_reset_unix: CREATED_AT + 30 * 24 * 3600,
      voice_slots_used: 0,
      professional_voice_slots_used: 0,
      professional_voice_slots_used_in_workspace: 0,
      voice_limit: 30,
      max_voice_add_edits: 95,
      voice_add_edit_counter: 0,
      professional_voice_limit: 1,
      can_extend_voice_limit: false,
      can_use_instant_voice_cloning: true,
      can_use_professional_voice_cloning: true,
      currency: 'usd',
      current_overage: { amount: '0', currency: 'usd' },
      status: 'active',
      billing_period: 'monthly_period',
      character_refresh_period: 'monthly_period',
    },
    is_new_user: false,
    can_use_delayed_payment_methods: false,
    is_onboarding_completed: true,
    is_onboarding_checklist_completed: true,
    first_name: 'Simulator',
    is_api_key_hashed: false,
    xi_api_key_preview: `${apiKey.slice(0, 3)}...${apiKey.slice(-4)}`,
    created_at: CREATED_AT,
    seat_type: 'workspace_admin',
  };
}
