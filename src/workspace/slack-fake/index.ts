export { SlackFakeServer, type RecordedCall } from './server.ts';
export type { HangEffect } from './hang.ts';
export { SlackDriver, stateFromView, type DriverResponse, type EnvelopeType, type SendOptions, type SlackTransport } from './driver.ts';

export { type FakeMessage, type FakeView } from './workspace-model.ts';
