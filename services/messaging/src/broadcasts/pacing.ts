import type { SendProfile } from '@crm/shared/schemas';

/**
 * Messages per second one number sends for a broadcast, by send profile. QR-code numbers are personal accounts
 * that get banned when they send like machines, so they go slowly; official numbers are limited by the provider
 * (80 messages/s on the cloud API) and by their quality rating, so `aggressive` stays below that ceiling.
 */
export const SEND_RATES: Record<SendProfile, { qrcode: number; official: number }> = {
  conservative: { qrcode: 0.2, official: 10 },
  moderate: { qrcode: 0.5, official: 30 },
  aggressive: { qrcode: 1, official: 60 },
};

/** Milliseconds between two sends of one lane. */
export function sendInterval(profile: SendProfile, channel: 'qrcode' | 'official', multiplier: number): number {
  return 1000 / (SEND_RATES[profile][channel] * multiplier);
}
