// The part of Discord's Embedded App SDK the page uses, bundled by gen.go
// into ../assets/sdk.js as the global tttDiscord.
export { DiscordSDK } from '@discord/embedded-app-sdk';
