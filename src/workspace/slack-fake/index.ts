export { SlackFakeServer, type HangEffect, type RecordedCall } from './server.ts';
export { SlackDriver, stateFromView, type DriverResponse, type EnvelopeType, type SendOptions, type SlackTransport } from './driver.ts';

export { type FakeMessage, type FakeView } from './workspace-model.ts';
