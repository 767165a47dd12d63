//! Faults on real `kaadxpay` processes: a request stopped half way (fail points, `SIGKILL`),
//! overload and outages that must fail fast, and slow clients that must not close the door.

mod failpoints;
mod overload;
mod slow_clients;
