//! Faults on real `kaadxpay` processes: a request stopped half way (fail points, `SIGKILL`),
//! overload and outages that must fail fast, slow clients that must not close the door, and
//! refunds whose partner answers are lost.

mod failpoints;
mod overload;
mod refunds;
mod slow_clients;
