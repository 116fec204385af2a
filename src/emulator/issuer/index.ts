export { startIssuer, RunningIssuer, type IssuerOptions, type ClaimMatch } from './issuer.ts';
