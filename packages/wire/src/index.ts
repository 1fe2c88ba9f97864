export { PROVIDER_TIME_ZONE } from "./time-zone.js";
