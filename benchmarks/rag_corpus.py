"""Twenty short documents and ten questions, each answered by exactly one document."""

DOCUMENTS = {
    "boiler.txt": "The boiler in the basement must be serviced every autumn. Its pressure "
                  "gauge should read between 1 and 1.5 bar; top it up with the filling loop.",
    "wifi.txt": "The home Wi-Fi network is called Lighthouse and the router sits in the hall "
                "cupboard. Restart it by holding the reset button for ten seconds.",
    "bins.txt": "Recycling bins are collected on Tuesday mornings; the green garden-waste bin "
                "goes out every second Friday from March to November.",
    "cat.txt": "Miso the cat eats wet food twice a day, at 7 am and 6 pm, and must not be "
               "given milk. Her vet is Dr Alvarez on Station Road.",
    "car.txt": "The car needs its MOT test in May. Tyre pressure is 2.3 bar at the front and "
               "2.1 bar at the rear; the spare wheel is under the boot floor.",
    "garden.txt": "Tomatoes in the greenhouse need watering every evening in summer and a "
                  "potash feed once a week once the first fruits appear.",
    "insurance.txt": "The house insurance policy renews on the first of September; the policy "
                     "number is kept in the blue folder in the study.",
    "bread.txt": "Sourdough recipe: 500 g flour, 350 g water, 100 g starter and 10 g salt. "
                 "Bake at 240 degrees for 20 minutes with the lid on, then 20 without.",
    "school.txt": "School pickup is at 3:15 pm. On Wednesdays the children have swimming and "
                  "finish at 4 pm at the leisure centre.",
    "doctor.txt": "The family doctor's surgery opens at 8 am; appointments are booked by phone "
                  "and repeat prescriptions take two working days.",
    "solar.txt": "The solar panels on the roof produce about 3,800 kWh a year. The inverter in "
                 "the loft shows a green light when it is feeding the grid.",
    "alarm.txt": "The burglar alarm code is changed every six months. To set the alarm, press "
                 "part-set and leave through the front door within 30 seconds.",
    "water.txt": "The main water stopcock is under the kitchen sink, behind the cleaning "
                 "products. Turn it clockwise to shut off the water supply.",
    "bike.txt": "Bike chains should be cleaned and oiled every 300 km. The bike lock key is "
                "hanging on the hook next to the back door.",
    "plants.txt": "The fern in the bathroom likes humidity and indirect light; the cactus on "
                  "the windowsill needs water only once a month.",
    "holiday.txt": "The summer holiday is booked for the second week of August in a cottage in "
                   "Cornwall; the ferry leaves Plymouth at 9 in the morning.",
    "fuse.txt": "The fuse box is in the garage. If the kitchen sockets trip, reset switch "
                "number four after unplugging the kettle.",
    "dog.txt": "Biscuit the neighbour's dog is walked by us on Saturdays; he is afraid of "
               "bicycles and must be kept on the lead near the park.",
    "piano.txt": "Piano lessons are on Thursday at five with Mrs Okafor; practise scales for "
                 "fifteen minutes a day before the grade two exam.",
    "freezer.txt": "The chest freezer in the utility room must be defrosted twice a year; "
                   "keep it at minus eighteen degrees Celsius.",
}

QUESTIONS = {
    "How do I shut off the water?": "water.txt",
    "When is the rubbish collected?": "bins.txt",
    "What should the boiler pressure be?": "boiler.txt",
    "What time does the cat get fed?": "cat.txt",
    "What is the Wi-Fi network name?": "wifi.txt",
    "How long do I bake the sourdough?": "bread.txt",
    "Where is the fuse box?": "fuse.txt",
    "When does the house insurance renew?": "insurance.txt",
    "When are piano lessons?": "piano.txt",
    "What temperature should the freezer be?": "freezer.txt",
    "How much electricity do the solar panels make?": "solar.txt",
}
