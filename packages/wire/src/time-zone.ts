/**
 * The provider's time zone: wall-clock times in its reports ("2021-04-09 16:27:51") carry no
 * zone, and the platform is India-based. The receiver reads them in this zone and the sandbox
 * and CLI write them in it, unless told otherwise (`timeZone`).
 */
export const PROVIDER_TIME_ZONE = "Asia/Kolkata";
