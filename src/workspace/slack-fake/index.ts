export { SlackFakeServer, type ExtraRoutes, type RecordedCall } from './server.ts';
export { SlackDriver, stateFromView, type DriverResponse, type EnvelopeType, type SendOptions, type SlackTransport } from './driver.ts';
export { slackSignatureHeaders } from './signing.ts';
export { WorkspaceModel, type FakeMessage, type FakeEphemeral, type FakeView } from './workspace-model.ts';
