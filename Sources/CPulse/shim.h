#pragma once
#include <pulse/pulseaudio.h>
#include <pulse/thread-mainloop.h>
